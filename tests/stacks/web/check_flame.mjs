// The flame graph in a browser: node check_flame.mjs SVG FOLDED PATTERN FRAME PNG
//
// Opens SVG in headless Chromium and checks that it renders; that every box
// is as wide as its stack's count in FOLDED (data-v and the drawn width),
// boxes and stacks one to one; that a click on the first box named FRAME
// zooms into it (full width, only it, its ancestors and what is above it
// shown) and the reset undoes it; that a search for PATTERN through the
// page's own Search button (a prompt) marks exactly the frames whose name
// matches and reports their share of the total, as the folded counts give
// it. Writes a screenshot of the search to PNG.
import fs from 'node:fs';
import { launch, fail } from './chromium.mjs';

const [svgPath, foldedPath, pattern, frameName, pngPath] = process.argv.slice(2);
if (!pngPath) fail('usage: check_flame.mjs SVG FOLDED PATTERN FRAME PNG');

// Inclusive counts of every stack prefix, from the folded file.
const inclusive = new Map();
let total = 0;
for (const line of fs.readFileSync(foldedPath, 'utf8').split('\n')) {
  if (!line) continue;
  const at = line.lastIndexOf(' ');
  const frames = line.slice(0, at).split(';');
  const count = Number(line.slice(at + 1));
  total += count;
  for (let i = 1; i <= frames.length; i++) {
    const key = frames.slice(0, i).join(';');
    inclusive.set(key, (inclusive.get(key) || 0) + count);
  }
}
// The share a search should report: stacks counted once however many frames match.
const re = new RegExp(pattern);
let matched = 0;
for (const line of fs.readFileSync(foldedPath, 'utf8').split('\n')) {
  if (!line) continue;
  const at = line.lastIndexOf(' ');
  if (line.slice(0, at).split(';').some(f => re.test(f))) matched += Number(line.slice(at + 1));
}

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  await page.goto('file://' + fs.realpathSync(svgPath));
  const boxes = await page.evaluate(() => window.hwtFlame.boxes());
  if (!boxes.length) fail('no frames drawn');
  const width = await page.evaluate(() => +document.documentElement.dataset.width);
  const svgTotal = await page.evaluate(() => window.hwtFlame.total);
  if (svgTotal !== total) fail(`the graph's total is ${svgTotal}, the folded stacks' ${total}`);

  // Each box's stack: the boxes below it that contain it.
  const drawn = await page.evaluate(() => Array.from(document.querySelectorAll('g.f rect'),
    r => ({ x: +r.getAttribute('x'), w: +r.getAttribute('width'),
            shown: r.getBoundingClientRect().width > 0 })));
  const paths = [];
  const stack = [];
  boxes.forEach((b, i) => {
    stack.length = b.d;
    stack[b.d] = b.name;
    paths.push(stack.join(';'));
  });
  const per = (width - 20) / total;
  let checked = 0;
  boxes.forEach((b, i) => {
    const want = inclusive.get(paths[i]);
    if (want !== b.v) fail(`box ${paths[i]}: ${b.v}, the folded stacks say ${want}`);
    if (Math.abs(drawn[i].w - b.v * per) > 0.01) fail(`box ${paths[i]}: drawn ${drawn[i].w} px`);
    checked++;
  });
  const minWidth = 0.1;
  for (const [key, v] of inclusive)
    if (v * per >= minWidth && !paths.includes(key) && key.split(';').length <= 2048)
      fail(`stack ${key} (${v}) has no box`);

  // Zoom into FRAME.
  const index = boxes.findIndex(b => b.name === frameName);
  if (index < 0) fail(`no box named ${frameName}`);
  await page.locator('g.f').nth(index).click();
  const zoomed = await page.evaluate(i => {
    const gs = Array.from(document.querySelectorAll('g.f'));
    return { w: +gs[i].querySelector('rect').getAttribute('width'),
             hidden: gs.filter(g => g.style.display === 'none').length,
             reset: document.getElementById('reset').style.display };
  }, index);
  if (Math.abs(zoomed.w - (width - 20)) > 0.01) fail(`zoomed box is ${zoomed.w} px wide`);
  if (!zoomed.hidden) fail('zoom hid nothing');
  if (zoomed.reset !== 'inline') fail('no Reset Zoom after a zoom');
  // Everything shown after the zoom is inside the zoomed box or below it.
  const z = boxes[index];
  const shown = await page.evaluate(() => Array.from(document.querySelectorAll('g.f'),
    g => g.style.display !== 'none'));
  boxes.forEach((b, i) => {
    const inside = b.x >= z.x && b.x + b.v <= z.x + z.v && b.d >= z.d;
    const below = b.d < z.d && b.x <= z.x && b.x + b.v >= z.x + z.v;
    if (shown[i] !== (inside || below)) fail(`zoom: box ${paths[i]} shown ${shown[i]}`);
  });
  await page.locator('#reset').click();
  const after = await page.evaluate(() => Array.from(document.querySelectorAll('g.f'),
    g => g.style.display !== 'none').every(x => x));
  if (!after) fail('reset zoom left boxes hidden');

  // Search through the page's own button and prompt.
  page.once('dialog', d => d.accept(pattern));
  await page.locator('#search').click();
  const result = await page.evaluate(() => ({
    text: document.getElementById('matched').textContent,
    hits: Array.from(document.querySelectorAll('g.f'), g => g.classList.contains('hit')),
    value: +document.documentElement.dataset.matched,
  }));
  boxes.forEach((b, i) => {
    if (result.hits[i] !== re.test(b.name)) fail(`search: box ${paths[i]} marked ${result.hits[i]}`);
  });
  if (result.value !== matched) fail(`search matched ${result.value}, the folded stacks ${matched}`);
  const want = 'Matched: ' + (100 * matched / total).toFixed(2) + '%';
  if (result.text !== want) fail(`search says '${result.text}', expected '${want}'`);
  // The roots are at the bottom of a tall graph: show them and the share.
  await page.evaluate(() => window.scrollTo(0, document.documentElement.getBoundingClientRect().height));
  await page.screenshot({ path: pngPath });
  console.log(`ok: ${checked} boxes as wide as their folded counts, zoom into ${frameName}, ` +
              `reset, search /${pattern}/: ${result.hits.filter(x => x).length} boxes, ${want}`);
} finally {
  await browser.close();
}
