#!/usr/bin/env bash
# Install the servers the deployment tests start and stop themselves: PostgreSQL (several
# `serve` processes sharing one database) and nginx (the reverse proxy), both from Debian's
# packages (the psycopg driver comes with pip's `test` extra), and Caddy, the other proxy
# docs/deploy.md configures. Idempotent: apt runs only when
# one of them is missing. The packages' own services are not used (the tests run private
# instances in temporary directories), so the install is kept from starting them.
set -euo pipefail
need=()
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || need+=(postgresql)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
# the documented Caddy site is run too
command -v caddy >/dev/null 2>&1 || need+=(caddy)
# the TLS test of the documented nginx site makes its own certificate
command -v openssl >/dev/null 2>&1 || need+=(openssl)
if [ "${#need[@]}" -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update
  # policy-rc.d 101: do not start the packages' services (no init system on CI machines)
  made_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod +x /usr/sbin/policy-rc.d
    made_policy=1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${need[@]}"
  if [ -n "$made_policy" ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi
fi
