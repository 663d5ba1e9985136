#!/usr/bin/env bash
# make-lab-ca.sh: a small certificate authority for a powersweep lab, made
# with the openssl command-line tool. Not for the internet: one CA key on
# disk, no revocation.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: make-lab-ca.sh DIR COMMAND [ARGS...]

Makes certificates for powersweep under DIR (created if missing). The CA is
made on first use (DIR/ca.key, DIR/ca.crt) and reused afterwards. Private
keys are written with mode 0600.

Commands:
  ca                        only the CA (DIR/ca.key, DIR/ca.crt)
  controller [NAME|IP ...]  the controller's server certificate
                            (DIR/controller.key, DIR/controller.crt); its
                            subject alternative names are the given host
                            names and IP addresses plus localhost and
                            127.0.0.1
  device ID [ID ...]        one client certificate per agent, CN = the
                            device id (DIR/device-ID.key, DIR/device-ID.crt)
  operator [NAME]           a client certificate for a CLI user, OU=operator,
                            CN = NAME (default "operator")
                            (DIR/operator-NAME.key, DIR/operator-NAME.crt)

Options (environment): DAYS (validity of new certificates, default 825),
OPENSSL (the openssl binary, default /usr/bin/openssl or openssl on PATH).

Example:
  make-lab-ca.sh lab controller ctl.lab 10.0.0.5
  make-lab-ca.sh lab device orin-01 orin-02
  make-lab-ca.sh lab operator alice
  powersweep-controller --listen=0.0.0.0:7070 --tls_cert=lab/controller.crt \
      --tls_key=lab/controller.key --tls_ca=lab/ca.crt
  powersweep-agent --controller=ctl.lab:7070 --device_id=orin-01 \
      --tls_ca=lab/ca.crt --tls_cert=lab/device-orin-01.crt \
      --tls_key=lab/device-orin-01.key
EOF
}

die() { echo "make-lab-ca.sh: $*" >&2; exit 2; }

if [ $# -ge 1 ] && { [ "$1" = --help ] || [ "$1" = -h ]; }; then usage; exit 0; fi
[ $# -ge 2 ] || { usage >&2; exit 2; }

DIR=$1
CMD=$2
shift 2
DAYS=${DAYS:-825}
if [ -z "${OPENSSL:-}" ]; then
  if [ -x /usr/bin/openssl ]; then OPENSSL=/usr/bin/openssl; else OPENSSL=openssl; fi
fi
command -v "$OPENSSL" >/dev/null || die "openssl not found (set OPENSSL)"
[[ $DAYS =~ ^[1-9][0-9]*$ ]] || die "DAYS: must be a positive integer, got '$DAYS'"

mkdir -p "$DIR"
chmod 0700 "$DIR"

# A name that goes into a subject: letters, digits, '.', '_', '-' only, so
# it cannot inject other subject fields.
check_name() {
  local what=$1 name=$2
  [[ $name =~ ^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$ ]] ||
    die "$what: '$name' must be 1-63 letters, digits, '.', '_' or '-'"
}

# new_key FILE: a P-256 key readable only by its owner.
new_key() {
  (umask 077 && "$OPENSSL" genpkey -algorithm EC \
      -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null) ||
    die "cannot write key $1"
  chmod 0600 "$1"
}

ensure_ca() {
  if [ -f "$DIR/ca.key" ] && [ -f "$DIR/ca.crt" ]; then return; fi
  new_key "$DIR/ca.key"
  "$OPENSSL" req -x509 -new -key "$DIR/ca.key" -sha256 -days "$DAYS" \
    -subj "/O=powersweep/OU=lab-ca/CN=powersweep lab CA" \
    -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$DIR/ca.crt" 2>/dev/null || die "cannot make the CA in $DIR"
  echo "CA: $DIR/ca.crt (key $DIR/ca.key)"
}

# issue NAME SUBJECT EXTENSIONS: DIR/NAME.key and DIR/NAME.crt signed by the CA.
issue() {
  local name=$1 subject=$2 extensions=$3
  local ext
  ext=$(mktemp)
  trap 'rm -f "$ext"' RETURN
  printf '%s\n' "$extensions" >"$ext"
  new_key "$DIR/$name.key"
  "$OPENSSL" req -new -key "$DIR/$name.key" -subj "$subject" 2>/dev/null |
    "$OPENSSL" x509 -req -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" \
      -CAcreateserial -days "$DAYS" -sha256 -extfile "$ext" \
      -out "$DIR/$name.crt" 2>/dev/null || die "cannot issue $DIR/$name.crt"
  echo "$name: $DIR/$name.crt (key $DIR/$name.key)"
}

client_ext="basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth"

case $CMD in
  ca)
    [ $# -eq 0 ] || die "ca takes no arguments"
    ensure_ca
    ;;
  controller)
    ensure_ca
    sans=("DNS:localhost" "IP:127.0.0.1")
    cn=localhost
    for host in "$@"; do
      if [[ $host =~ ^[0-9]+(\.[0-9]+){3}$ ]] || [[ $host == *:* ]]; then
        [[ $host =~ ^[0-9A-Fa-f:.]+$ ]] || die "controller: '$host' is not an IP address"
        sans+=("IP:$host")
      else
        check_name "controller" "$host"
        sans+=("DNS:$host")
      fi
      [ "$cn" != localhost ] || cn=$host
    done
    san_list=$(IFS=,; echo "${sans[*]}")
    issue controller "/O=powersweep/OU=controller/CN=$cn" \
      "basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=$san_list"
    ;;
  device)
    [ $# -ge 1 ] || die "device: give at least one device id"
    ensure_ca
    for id in "$@"; do
      check_name "device" "$id"
      issue "device-$id" "/O=powersweep/OU=device/CN=$id" "$client_ext"
    done
    ;;
  operator)
    [ $# -le 1 ] || die "operator takes at most one NAME"
    name=${1:-operator}
    check_name "operator" "$name"
    ensure_ca
    issue "operator-$name" "/O=powersweep/OU=operator/CN=$name" "$client_ext"
    ;;
  *)
    die "unknown command '$CMD' (ca, controller, device, operator; see --help)"
    ;;
esac
