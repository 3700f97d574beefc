#!/usr/bin/env bash
# The whole suite: lint, type-check, config checks, unit, integration and end-to-end tests.
# On Debian as root it installs the system packages it needs; otherwise it names what is missing.
# The suite runs inside its own D-Bus session with a fresh, unlocked gnome-keyring, so keytar talks
# to a real Secret Service and the user's own keychain is never touched.
set -uo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(libsecret-1-dev gnome-keyring libsecret-tools dbus dbus-x11 chromium xvfb openssl postgresql poppler-utils tesseract-ocr)

missing_packages() {
  local missing=()
  for pkg in "${DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  echo "${missing[@]:-}"
}

if command -v dpkg-query >/dev/null 2>&1; then
  missing="$(missing_packages)"
  if [[ -n "${missing// /}" ]]; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
      echo "test: installing Debian packages: $missing"
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq && apt-get install -y -qq $missing >/dev/null || { echo "test: apt-get install failed for: $missing" >&2; exit 1; }
    else
      echo "test: missing system packages: $missing" >&2
      echo "test: install them with: sudo apt-get install $missing" >&2
      exit 1
    fi
  fi
else
  for tool in dbus-run-session gnome-keyring-daemon secret-tool chromium pdftotext pdftoppm tesseract; do
    command -v "$tool" >/dev/null 2>&1 || { echo "test: missing tool: $tool (see README, Linux prerequisites)" >&2; exit 1; }
  done
fi

if [[ ! -d node_modules ]]; then
  echo "test: node_modules is missing: run npm install (or npm ci) first" >&2
  exit 1
fi

# `npm start` rebuilds better-sqlite3 for Electron's ABI; the tests run under plain Node, so give it
# back a Node build if the current one does not load here.
if ! node -e "new (require('better-sqlite3'))(':memory:').close()" >/dev/null 2>&1; then
  echo "test: better-sqlite3 is not built for this Node (npm start builds it for Electron): rebuilding it"
  npm rebuild better-sqlite3 >/dev/null || { echo "test: npm rebuild better-sqlite3 failed" >&2; exit 1; }
fi

exec dbus-run-session -- bash scripts/test-suite.sh "$@"
