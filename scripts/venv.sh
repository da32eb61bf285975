# Sourced by serve.sh and test.sh: make_venv makes the virtual environment $VENV (default .venv,
# or $STONEGARDEN_VENV) with $PYTHON (default python3) if it is not there yet, installing
# Debian's python3-venv when the system lacks the venv module's ensurepip.
PYTHON="${PYTHON:-python3}"
VENV="${STONEGARDEN_VENV:-.venv}"

check_python() {
  if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "stonegarden needs Python 3.11 or newer; $PYTHON is $("$PYTHON" -V 2>&1)." >&2
    echo "Run it with another one, e.g. PYTHON=python3.12 bash $0" >&2
    exit 1
  fi
}

# whether $PYTHON refuses `pip install` outside a virtual environment (PEP 668, as Debian's
# and Ubuntu's system Python do), and is not already running in one
externally_managed() {
  "$PYTHON" -c 'import os, sys, sysconfig
marker = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")
sys.exit(0 if os.path.exists(marker) and sys.prefix == sys.base_prefix else 1)'
}

# whether $VENV's Python is the version (major.minor) the environment was made with: after a
# system upgrade (Debian 12 to 13: Python 3.11 to 3.13) its python3 is the new one, which
# sees none of the packages installed for the old one, not even pip
venv_current() {
  local made now
  made=$(sed -n 's/^version[_a-z]* *= *\([0-9]*\.[0-9]*\).*/\1/p' "$VENV/pyvenv.cfg" 2>/dev/null |
         head -n 1)
  now=$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) ||
    return 1
  [ -z "$made" ] || [ "$made" = "$now" ]
}

make_venv() {
  if [ -x "$VENV/bin/python" ] && venv_current; then return; fi
  if [ -f "$VENV/pyvenv.cfg" ]; then
    echo "$VENV was made with a Python that is no longer there (its packages cannot be" \
         "loaded): making it again" >&2
    rm -rf "$VENV"
  fi
  if ! "$PYTHON" -m venv "$VENV" >/dev/null 2>&1; then
    # Debian and Ubuntu ship the venv module (its ensurepip) as a package of its own
    rm -rf "$VENV"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "installing python3-venv (Debian/Ubuntu) to make $VENV" >&2
    $sudo apt-get update
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y python3-venv
    "$PYTHON" -m venv "$VENV"
  fi
}
