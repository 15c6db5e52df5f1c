#!/usr/bin/env bash
# Makes sure Debian's Chromium and ChromeDriver are installed: the Spring Boot demo's browser test
# (examples/spring-boot-demo, DemoPageBrowserTest) drives /usr/bin/chromium through /usr/bin/chromedriver.
# Installs them with apt-get when missing; exits non-zero with a clear message if that fails (the
# test would then fail, never skip).
set -u
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  echo "chromium-up: $(/usr/bin/chromium --version 2>/dev/null) and chromedriver present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
echo "chromium-up: installing chromium and chromium-driver (apt-get)"
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y -q chromium chromium-driver >/tmp/chromium-up.log 2>&1; then
  $SUDO apt-get update -q >>/tmp/chromium-up.log 2>&1
  if ! $SUDO apt-get install -y -q chromium chromium-driver >>/tmp/chromium-up.log 2>&1; then
    echo "chromium-up: could not install chromium and chromium-driver; see /tmp/chromium-up.log" >&2
    exit 1
  fi
fi
echo "chromium-up: $(/usr/bin/chromium --version 2>/dev/null) installed"
