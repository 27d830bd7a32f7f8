// Headless Chromium for the tests: Debian's /usr/bin/chromium through
// playwright-core, with the flags that keep it off the network.
import { chromium } from 'playwright-core';

export const executablePath = process.env.HWT_CHROMIUM || '/usr/bin/chromium';

export async function launch() {
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export function fail(message) {
  console.log('FAIL: ' + message);
  process.exit(1);
}
