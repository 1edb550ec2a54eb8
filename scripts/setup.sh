#!/usr/bin/env bash
# Set up musmesa on a fresh Debian machine (Python >= 3.11): system packages for the Kivy window
# under Xvfb, a virtualenv in .venv and the Python extras named in $1 (default: all).
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
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: apt-get install ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v "^WARNING: Location" || true
.venv/bin/python -m pip install -q -e ".[$EXTRAS]" 2>&1 | grep -v "^WARNING: Location" || true
# ultralytics pulls opencv-python, mediapipe wants opencv-contrib-python: both write cv2/, so the
# contrib build (a superset) is installed last, at the same pinned version.
if .venv/bin/python -m pip show -q opencv-contrib-python >/dev/null 2>&1; then
  .venv/bin/python -m pip install -q --force-reinstall --no-deps "opencv-contrib-python==4.14.0.94" \
    2>&1 | grep -v "^WARNING: Location" || true
fi
.venv/bin/python -c "import scoring" >/dev/null
echo "setup: ok ($EXTRAS)"
