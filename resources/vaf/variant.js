// ScreenLab VAF: one entry point evaluated in the page, `op` says what to do.
//   apply   mark the target and the items, add the variant's CSS / fonts / filters, move the target,
//           wait for fonts and layout, and measure (page coordinates)
//   measure the boxes again (after a scroll or a resize)
//   pick    the card under a page point and a selector that finds it again
//   dom     the page's DOM as text without our own marks (tests compare it across variants)
async (req) => {
  const pageBox = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left + window.scrollX, r.top + window.scrollY, r.right + window.scrollX, r.bottom + window.scrollY];
  };
  const textOf = (el) => (el.innerText || el.getAttribute('aria-label') || '').replace(/\s+/g, ' ').trim().slice(0, 300);
  const visible = (el) => {
    const s = getComputedStyle(el), r = el.getBoundingClientRect();
    return s.display !== 'none' && s.visibility !== 'hidden' && r.width > 0 && r.height > 0;
  };
  // A font is installed when text set in it is not as wide as in both generic fallbacks.
  const installed = (family) => {
    const c = document.createElement('canvas').getContext('2d');
    const probe = 'mmmmmmmmmmlli WWW 0123456789';
    for (const generic of ['monospace', 'serif']) {
      c.font = `32px ${generic}`; const base = c.measureText(probe).width;
      c.font = `32px "${family}", ${generic}`;
      if (c.measureText(probe).width !== base) return true;
    }
    return false;
  };
  const measure = () => {
    const target = document.querySelector('[data-vaf-target]');
    const items = Array.from(document.querySelectorAll('[data-vaf-item]'));
    const style = target ? getComputedStyle(target) : null;
    const image = target ? target.querySelector('img, svg, picture, canvas, video, [role=img]') : null;
    return {
      width: document.documentElement.scrollWidth,
      height: Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0),
      target: target && visible(target) ? pageBox(target) : null,
      items: items.map(el => ({index: Number(el.dataset.vafItem), box: visible(el) ? pageBox(el) : null,
                               text: textOf(el), target: el.hasAttribute('data-vaf-target')})),
      style: style ? {'background-color': style.backgroundColor, 'color': style.color, 'font-family': style.fontFamily,
                       'font-size': style.fontSize, 'zoom': style.zoom, 'filter': style.filter,
                       'image-filter': image ? getComputedStyle(image).filter : ''} : null,
      scroll: window.scrollY,
    };
  };
  const settle = async () => {
    await Promise.all(Array.from(document.fonts, f => f.load().catch(() => null)));
    await document.fonts.ready;
    document.body.getBoundingClientRect();
  };
  if (req.op === 'measure') { window.scrollTo(0, req.scroll || 0); return measure(); }
  if (req.op === 'dom') {
    const copy = document.documentElement.cloneNode(true);
    copy.querySelectorAll('[data-vaf]').forEach(el => el.remove());
    for (const el of [copy, ...copy.querySelectorAll('*')]) {
      for (const a of Array.from(el.attributes)) if (a.name.startsWith('data-vaf')) el.removeAttribute(a.name);
    }
    return copy.outerHTML;
  }
  if (req.op === 'pick') {
    window.scrollTo(0, Math.max(0, req.y - 100));
    let el = document.elementFromPoint(req.x - window.scrollX, req.y - window.scrollY);
    if (!el) return null;
    // climb to the card: the first ancestor with at least two siblings of its own tag (an item of a list)
    let card = el;
    for (let node = el; node && node !== document.body; node = node.parentElement) {
      const same = node.parentElement ? Array.from(node.parentElement.children).filter(c => c.tagName === node.tagName) : [];
      if (same.length >= 3) { card = node; break; }
    }
    const selectorOf = (node) => {
      if (node.id && document.querySelectorAll('#' + CSS.escape(node.id)).length === 1) return '#' + CSS.escape(node.id);
      const parts = [];
      for (let n = node; n && n !== document.documentElement; n = n.parentElement) {
        if (n.id && document.querySelectorAll('#' + CSS.escape(n.id)).length === 1) { parts.unshift('#' + CSS.escape(n.id)); break; }
        const same = Array.from(n.parentElement.children).filter(c => c.tagName === n.tagName);
        const tag = n.tagName.toLowerCase();
        parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(n) + 1})` : tag);
      }
      return parts.join(' > ');
    };
    const siblings = card.parentElement ? Array.from(card.parentElement.children).filter(c => c.tagName === card.tagName) : [];
    const cls = Array.from(card.classList).find(c => siblings.every(s => s.classList.contains(c)));
    window.scrollTo(0, 0);
    return {selector: selectorOf(card), text: textOf(card), box: pageBox(card),
            items: siblings.length >= 3 && cls ? `${selectorOf(card.parentElement)} > .${CSS.escape(cls)}` : ''};
  }
  // op === 'apply': first undo the previous variant applied to this page, if any (the page is loaded
  // once per study: loading it again per variant cost most of a render)
  if (window.__vaf) {
    document.querySelectorAll('[data-vaf]').forEach(el => el.remove());
    const {target: was, parent, next} = window.__vaf;
    if (next && next.parentNode === parent) parent.insertBefore(was, next); else parent.appendChild(was);
    for (const el of document.querySelectorAll('[data-vaf-item], [data-vaf-target]')) {
      el.removeAttribute('data-vaf-item'); el.removeAttribute('data-vaf-target');
    }
    window.scrollTo(0, 0);
  }
  // a selector typed by a person may not be CSS at all: said, not thrown
  const find = (selector, what, all) => {
    try { return all ? Array.from(document.querySelectorAll(selector)) : document.querySelector(selector); }
    catch (e) { throw new Error(`the ${what} selector ${selector} is not valid CSS`); }
  };
  let target, items;
  try {
    target = find(req.target, 'target', false);
    if (!target) return {error: `the target selector ${req.target} matches nothing on this page`};
    items = req.items ? find(req.items, 'items', true)
                      : Array.from(target.parentElement.children).filter(c => c.tagName === target.tagName);
  } catch (e) { return {error: e.message}; }
  if (!items.includes(target)) items = [target, ...items];
  window.__vaf = {target, parent: target.parentNode, next: target.nextSibling};
  items.forEach((el, i) => el.setAttribute('data-vaf-item', String(i)));
  target.setAttribute('data-vaf-target', '');
  // a page at rest: no transition caught halfway to the variant's colour, no running animation, no caret
  const still = document.createElement('style');
  still.setAttribute('data-vaf', 'still');
  still.textContent = '*, *::before, *::after { transition: none !important; animation: none !important; caret-color: transparent !important; }';
  document.head.appendChild(still);
  const fontFaces = Object.entries(req.fonts || {}).map(([name, url]) => `@font-face { font-family: "${name}"; src: url("/${url}") format("woff2"); }`);
  if (req.css || fontFaces.length) {
    const style = document.createElement('style');
    style.setAttribute('data-vaf', 'style');
    style.textContent = fontFaces.join('\n') + '\n' + (req.css || '');
    document.head.appendChild(style);
  }
  if (req.svg) {
    const holder = document.createElement('div');
    holder.setAttribute('data-vaf', 'filters');
    holder.innerHTML = req.svg;
    document.body.appendChild(holder);
  }
  const warnings = [];
  if (req.move) {
    const others = items.filter(el => el !== target);
    const slots = Object.assign({banner: 'main, [role=main]', header: 'header, [role=banner]',
                                 sidebar: 'aside, [role=complementary]'}, req.slots || {});
    if (req.move === 'middle' || req.move === 'last') {
      if (!others.length) return {error: 'the target has no other items to move among (give an items selector)'};
      if (req.move === 'last') others[others.length - 1].after(target);
      else others[Math.floor(others.length / 2)].before(target);
    } else {
      let slot;
      try { slot = find(slots[req.move], req.move, false); } catch (e) { return {error: e.message}; }
      if (!slot) return {error: `this page has no ${req.move} to move the target into (no element matches ${slots[req.move]}; give a slot selector)`};
      if (slot.contains(target) && req.move !== 'banner') return {error: `the target is already inside the ${req.move}`};
      if (req.move === 'header') slot.appendChild(target); else slot.prepend(target);
    }
  }
  for (const [name, url] of Object.entries(req.fonts || {})) {
    try { await document.fonts.load(`16px "${name}"`); } catch (e) { warnings.push(`font ${name} did not load`); }
  }
  await settle();
  if (req.checkFont) {
    const generic = ['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'system-ui'];
    const stack = getComputedStyle(target).fontFamily.split(',').map(f => f.trim().replace(/^"|"$/g, ''));
    const used = stack.find(f => generic.includes(f) || installed(f));
    if (used !== stack[0]) warnings.push(`font ${stack[0]} is not installed here: the target's text is set in ${used || 'the default font'}`);
  }
  return Object.assign(measure(), {warnings});
}
