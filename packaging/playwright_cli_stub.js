#!/usr/bin/env node
// ScreenLab's installer ships Playwright's driver JavaScript as package.tar.xz (12 MB -> 2 MB). Playwright always
// starts `node <driver>/package/cli.js`, so this file stands in for its cli.js: ScreenLab unpacks the archive
// into the user's cache folder on the first render (desktop_app/render/node_runtime.py) and names that folder in
// SCREENLAB_PLAYWRIGHT_PACKAGE; the real cli.js runs from there with the same arguments.
const path = require('path');
const unpacked = process.env.SCREENLAB_PLAYWRIGHT_PACKAGE;
if (!unpacked) {
  process.stderr.write('ScreenLab: SCREENLAB_PLAYWRIGHT_PACKAGE is not set; the driver is started by ScreenLab, ' +
                       'which unpacks package.tar.xz first\n');
  process.exit(1);
}
require(path.join(unpacked, 'cli.js'));
