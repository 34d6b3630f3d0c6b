# Sourced by .ci/run: makes Node 22, the floor in package.json, the first `node` on PATH.
# The machine's own node is used when it is 22. Otherwise the npm registry's `node` package (which
# pulls the platform's binary package) is installed into .ci/node, outside the project's
# dependencies, and native modules compile against the headers that binary package carries.
NODE_MAJOR=22
major() { "${1:-node}" -p 'process.versions.node.split(".")[0]' 2>/dev/null || true; }
if [ "$(major)" != "$NODE_MAJOR" ]; then
  CI_NODE="$PWD/.ci/node"
  if [ "$(major "$CI_NODE/node_modules/.bin/node")" != "$NODE_MAJOR" ]; then
    npm install --prefix "$CI_NODE" --no-save --no-package-lock --no-audit --no-fund "node@$NODE_MAJOR"
  fi
  export PATH="$CI_NODE/node_modules/.bin:$PATH"
  for headers in "$CI_NODE"/node_modules/node/node_modules/node-*/include/node; do
    [ -f "$headers/node_version.h" ] && export npm_config_nodedir="${headers%/include/node}"
  done
fi
if [ "$(major)" != "$NODE_MAJOR" ]; then
  echo "CI: Node $NODE_MAJOR needed, $(node --version 2>/dev/null || echo 'no node') found" >&2
  exit 1
fi
