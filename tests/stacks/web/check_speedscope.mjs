// speedscope itself on hwt's file: node check_speedscope.mjs [--png PNG] FILE NAME...
//
// Loads FILE into speedscope's own page (the npm package's release build)
// in headless Chromium, as its command line does (a script that calls
// speedscope.loadFileFromBase64), and checks that it imported the profile
// (no error, the title names the file: its name field, a Chrome trace's
// file name), that its importer complained of nothing (speedscope warns on
// the console when an "E" event or a close does not match the innermost
// open frame, or a frame is left open), and that its table of functions
// (the Sandwich view) lists every NAME. FILE is hwt's speedscope file or
// its Chrome trace events (speedscope imports those too). PNG: a
// screenshot of its timeline.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { launch, fail } from './chromium.mjs';

const args = process.argv.slice(2);
let png = null;
if (args[0] === '--png') {
  png = args[1];
  args.splice(0, 2);
}
const [file, ...names] = args;
if (!names.length) fail('usage: check_speedscope.mjs [--png PNG] FILE NAME...');
const require = createRequire(import.meta.url);
const index = path.join(path.dirname(require.resolve('speedscope/package.json')),
                        'dist', 'release', 'index.html');
const js = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hwt-speedscope-')), 'load.js');
fs.writeFileSync(js, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(file))}, ` +
                     `${JSON.stringify(fs.readFileSync(file).toString('base64'))})`);

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on('pageerror', e => errors.push(String(e)));
  page.on('dialog', d => { errors.push('dialog: ' + d.message()); d.dismiss(); });
  // The importer's complaints (not Chromium's GL driver notes, "[.WebGL-...]",
  // nor speedscope's note on wasm served from file://).
  page.on('console', m => {
    if ((m.type() === 'warning' || m.type() === 'error') && !/^\[\.WebGL-|WebAssembly/.test(m.text()))
      errors.push('console: ' + m.text());
  });
  await page.goto('file://' + index + '#localProfilePath=' + js);
  await page.waitForFunction(() => document.title.includes('speedscope') &&
                                   !document.title.startsWith('speedscope'), null,
                             { timeout: 30000 }).catch(() => {});
  const title = await page.title();
  if (errors.length) fail('speedscope: ' + errors.join('; '));
  // speedscope titles the page with the file's "name", else the file name.
  const want = JSON.parse(fs.readFileSync(file, 'utf8')).name ?? path.basename(file);
  if (title !== `${want} - speedscope`) fail(`speedscope did not load it (title '${title}')`);
  if (png) await page.screenshot({ path: png });
  await page.getByText(/Sandwich/).first().click();
  const text = await page.locator('body').innerText();
  for (const name of names)
    if (!text.includes(name)) fail(`speedscope's function table has no ${name}`);
  fs.rmSync(path.dirname(js), { recursive: true });
  console.log(`ok: speedscope loaded ${path.basename(file)} ('${title}'), lists ${names.join(', ')}`);
} finally {
  await browser.close();
}
