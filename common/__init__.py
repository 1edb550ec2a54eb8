"""The bottom layer: small helpers every package but scoring/ may use; it imports nothing of ours."""
