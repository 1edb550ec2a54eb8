#!/usr/bin/env bash
# Set up musmesa on a fresh Debian machine (Python >= 3.11): system packages for the Kivy window
# under Xvfb (and PostgreSQL + Chromium for the tournament server's tests), a virtualenv in .venv
# and the Python extras named in $1 (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-all}"
PY="${PYTHON:-python3}"

need_apt=()
if [ "$EXTRAS" = "all" ] || [ "$EXTRAS" = "app" ]; then
  for pkg in xvfb xauth libgl1 libegl1 libgl1-mesa-dri libmtdev1; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
  done
fi
# the tournament server's tests: a PostgreSQL started on the loopback, nginx in front of two
# servers (the several-hosts test), and the organiser's pages in headless Chromium driven
# through Debian's chromedriver (nothing downloaded at run time)
if [ "$EXTRAS" = "all" ] || [ "$EXTRAS" = "test" ]; then
  for pkg in postgresql nginx chromium chromium-driver poppler-utils; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
  done
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# pip, quietly; any failure stops the setup with pip's own output (a broken install must never
# end in a green test run)
pip_install() {
  local log
  log=$(mktemp)
  if ! .venv/bin/python -m pip install -q "$@" >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup: pip install $* failed" >&2
    exit 1
  fi
  grep -v "^WARNING: Location" "$log" || true  # grep finds nothing when pip said nothing
  rm -f "$log"
}

[ -x .venv/bin/python ] || "$PY" -m venv .venv
pip_install --upgrade pip
pip_install -e ".[$EXTRAS]"
# ultralytics pulls opencv-python, mediapipe wants opencv-contrib-python: both write cv2/, so the
# contrib build (a superset) is installed last, at the same pinned version.
if .venv/bin/python -m pip show -q opencv-contrib-python >/dev/null 2>&1; then
  pip_install --force-reinstall --no-deps "opencv-contrib-python==4.14.0.94"
fi
.venv/bin/python -c "import scoring" >/dev/null
echo "setup: ok ($EXTRAS)"
