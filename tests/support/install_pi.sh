#!/usr/bin/env bash
# Puts the Pi the real-Pi tests run (tests/pi_rpc) into one folder, from the npm registry:
# a Node 22 binary (the npm package node-<os>-<arch>; Pi needs Node >= 22.19 and the system Node
# may be older) and @earendil-works/pi-coding-agent at a pinned version.
#
# Usage: tests/support/install_pi.sh [folder (default ~/.cache/pi-oracle)] [pi version (1.6.0)] [node version (22.21.1)]
# Prints PI_NODE=... and PI_PKG_DIR=... lines at the end. Needs npm (any version; npm itself may run on an old Node).
# Installing again into the same folder is a no-op for npm when the versions are already there.
set -euo pipefail

folder="${1:-$HOME/.cache/pi-oracle}"
pi_version="${2:-1.6.0}"
node_version="${3:-22.21.1}"

case "$(uname -s)" in
	Linux) platform=linux ;;
	Darwin) platform=darwin ;;
	*) echo "install_pi.sh: no Node package for $(uname -s)" >&2; exit 1 ;;
esac
case "$(uname -m)" in
	x86_64 | amd64) cpu=x64 ;;
	aarch64 | arm64) cpu=arm64 ;;
	*) echo "install_pi.sh: no Node package for CPU $(uname -m)" >&2; exit 1 ;;
esac
node_package="node-${platform}-${cpu}"

if ! command -v npm >/dev/null 2>&1; then
	echo "install_pi.sh: npm is needed to install Pi (apt-get install npm, or any Node.js install)" >&2
	exit 1
fi

mkdir -p "$folder"
folder="$(cd "$folder" && pwd)"
[ -f "$folder/package.json" ] || printf '{\n  "name": "pi-for-tests",\n  "private": true\n}\n' > "$folder/package.json"

# No install scripts: the Node binary is inside its package and Pi is plain JavaScript.
npm install --prefix "$folder" --no-audit --no-fund --ignore-scripts --loglevel=error \
	"${node_package}@${node_version}" "@earendil-works/pi-coding-agent@${pi_version}"

node_bin="$folder/node_modules/${node_package}/bin/node"
package_dir="$folder/node_modules/@earendil-works/pi-coding-agent"
[ -x "$node_bin" ] || { echo "install_pi.sh: $node_bin is missing after the install" >&2; exit 1; }
[ -f "$package_dir/dist/bundle/cli.js" ] || { echo "install_pi.sh: Pi's cli.js is missing in $package_dir" >&2; exit 1; }
probe_dir="$(mktemp -d)"
PI_CODING_AGENT_DIR="$probe_dir" PI_OFFLINE=1 "$node_bin" "$package_dir/dist/bundle/cli.js" --version >/dev/null
rm -rf "$probe_dir"
echo "PI_NODE=$node_bin"
echo "PI_PKG_DIR=$package_dir"
