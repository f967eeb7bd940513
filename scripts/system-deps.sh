#!/usr/bin/env bash
# System packages the tests need: Debian's Chromium (Playwright drives it; a
# browser download is not needed), a Redis server (the multi-process pub/sub
# test), PostgreSQL's server (the store on PostgreSQL; the tests start a
# throwaway server of their own), nginx with openssl and ss (the production
# shape: nginx in front of two processes, over TLS) and Node.js with npm
# (TypeScript checks the page's scripts). Installs only what is missing, and only where
# apt-get can run; elsewhere it says what to install and carries on.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v ss >/dev/null 2>&1 || missing+=(iproute2)
[ ${#missing[@]} -eq 0 ] && exit 0

if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "installing ${missing[*]} (for the browser, multi-process and script tests)"
    $sudo apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
else
    echo "warning: please install ${missing[*]}; the tests that need them will fail without them" >&2
fi
