"""The scripts the recorder puts into every page it opens (as init scripts, so each new page has them).

HELPERS describes elements the same way for recording and replaying: a CSS selector that finds the element
again, the text a person sees on it (never the value of a field: that may be a password), its box in
viewport pixels (the screenshot's), and whether it is sensitive. LISTENERS turns a person's (or Playwright's)
input into events for the exposed binding `__slRecord`: the capture happens in the page, so a headed session
and a headless test take the same path. The binding only queues: the recorder takes screenshots between
events, from Python.
"""

HELPERS = r"""
(() => {
  if (window.__sl) return;
  const squash = s => (s || '').replace(/\s+/g, ' ').trim();
  const SENSITIVE_TOKENS = /^(cc-|one-time-code$|current-password$|new-password$)/;
  const sensitive = el => {
    if (!el || el.nodeType !== 1) return false;
    if (el.localName === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'password') return true;
    const tokens = (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/);
    if (tokens.some(t => SENSITIVE_TOKENS.test(t))) return true;
    const marked = el.closest('[data-sensitive]');
    return !!marked && marked.getAttribute('data-sensitive') !== 'false';
  };
  const unique = sel => { try { return document.querySelectorAll(sel).length === 1; } catch (e) { return false; } };
  const selectorOf = el => {
    if (el.id && unique('#' + CSS.escape(el.id))) return '#' + CSS.escape(el.id);
    const tag = el.localName;
    const name = el.getAttribute('name');
    if (name && unique(`${tag}[name="${CSS.escape(name)}"]`)) return `${tag}[name="${CSS.escape(name)}"]`;
    const parts = [];
    for (let node = el; node && node.nodeType === 1 && node !== document.documentElement; node = node.parentElement) {
      if (node !== el && node.id && unique('#' + CSS.escape(node.id))) { parts.unshift('#' + CSS.escape(node.id)); break; }
      let part = node.localName;
      const same = node.parentElement ? Array.from(node.parentElement.children).filter(c => c.localName === node.localName) : [];
      if (same.length > 1) part += `:nth-of-type(${same.indexOf(node) + 1})`;
      parts.unshift(part);
    }
    return parts.join(' > ');
  };
  const textOf = el => {
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (['button', 'submit', 'reset'].includes(type)) return squash(el.value);
      const label = el.labels && el.labels[0] ? squash(Array.from(el.labels[0].childNodes)
        .filter(n => n !== el && !(n.nodeType === 1 && n.contains(el))).map(n => n.textContent).join(' ')) : '';
      return squash(el.getAttribute('aria-label') || label || el.getAttribute('placeholder') || el.getAttribute('name') || '');
    }
    return squash(el.getAttribute('aria-label') || el.innerText || el.getAttribute('title') || el.getAttribute('alt') || '');
  };
  const ACTIONABLE = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], '
    + '[role=checkbox], [role=radio], [role=tab], [role=menuitem], [role=option], [role=switch], [onclick], '
    + '[contenteditable=""], [contenteditable=true], [data-sl-label]';
  const actionable = el => (el && el.closest ? el.closest(ACTIONABLE) : null) || el;
  const visible = el => {
    const st = getComputedStyle(el);
    if (st.display === 'none' || st.visibility === 'hidden' || parseFloat(st.opacity) === 0) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < innerWidth && r.top < innerHeight;
  };
  const describe = el => {
    const r = el.getBoundingClientRect();
    return {selector: selectorOf(el), tag: el.localName, type: (el.getAttribute('type') || '').toLowerCase(),
            text: textOf(el), box: [r.left, r.top, r.right, r.bottom], sensitive: sensitive(el),
            name: el.getAttribute('name') || '', role: el.getAttribute('role') || ''};
  };
  const inBar = el => !!(el && el.closest && el.closest('[data-sl-recorder]'));
  const snapshot = () => {
    const seen = new Set(), elements = [], hidden = [], names = [];
    for (const el of document.querySelectorAll(ACTIONABLE)) {
      if (inBar(el)) continue;
      if (sensitive(el)) { names.push(el.getAttribute('name') || ''); if (visible(el)) hidden.push(describe(el).box); }
      if (seen.has(el) || !visible(el)) continue;
      seen.add(el);
      elements.push(describe(el));
    }
    const h1 = document.querySelector('h1');
    return {url: location.href, title: document.title, elements, sensitive: hidden, sensitive_names: names.filter(Boolean),
            heading: h1 ? squash(h1.innerText) : '', scroll: [scrollX, scrollY], viewport: [innerWidth, innerHeight]};
  };
  window.__sl = {squash, sensitive, selectorOf, textOf, actionable, describe, visible, snapshot, inBar};
})();
"""

LISTENERS = r"""
(() => {
  if (window.__slListening || window.top !== window) return;
  window.__slListening = true;
  const sl = window.__sl;
  const send = ev => { ev.t = Date.now(); ev.url = location.href; try { window.__slRecord(ev); } catch (e) {} };
  const editable = el => el && (el.localName === 'textarea' || el.isContentEditable || (el.localName === 'input'
    && !['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'range', 'color', 'image'].includes((el.type || '').toLowerCase())));
  let labelled = null;  // the control a click on its <label> is about to click again
  // Enter in a form field "clicks" its submit button, and Enter on a button clicks it: a click without a
  // pointer (detail 0) just after Enter is that key's doing, already its step, not a second action.
  let enterAt = -Infinity;
  window.addEventListener('click', e => {
    if (sl.inBar(e.target)) return;
    if (e.detail === 0 && performance.now() - enterAt < 1000) return;
    const el = sl.actionable(e.target);
    if (labelled && el === labelled) { labelled = null; return; }
    labelled = el.localName === 'label' && el.control ? el.control : null;
    send({kind: 'click', element: sl.describe(el), point: [e.clientX, e.clientY]});
  }, true);
  window.addEventListener('input', e => {
    const el = e.target;
    if (sl.inBar(el) || !editable(el)) return;
    const secret = sl.sensitive(el);
    // a sensitive field's text never leaves the page: only that something was typed
    send({kind: 'type', element: sl.describe(el), value: secret ? '' : (el.isContentEditable ? el.innerText : el.value)});
  }, true);
  window.addEventListener('change', e => {
    const el = e.target;
    if (sl.inBar(el) || el.localName !== 'select') return;
    const chosen = el.selectedOptions && el.selectedOptions[0];
    send({kind: 'select', element: sl.describe(el), value: el.value, label: chosen ? sl.squash(chosen.textContent) : ''});
  }, true);
  const KEYS = new Set(['Enter', 'Escape', 'Tab']);
  const MOVES = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'PageUp', 'PageDown', 'Home', 'End']);
  window.addEventListener('keydown', e => {
    if (sl.inBar(e.target)) return;
    if (e.key === 'Enter') enterAt = performance.now();
    if (!KEYS.has(e.key) && !(MOVES.has(e.key) && !editable(e.target))) return;
    const el = e.target && e.target !== document.body && e.target !== document.documentElement ? e.target : null;
    send({kind: 'key', key: e.key, element: el ? sl.describe(el) : null});
  }, true);
  let scrolling = null;
  window.addEventListener('scroll', () => {
    clearTimeout(scrolling);  // one event when the scrolling stops, not one per frame
    scrolling = setTimeout(() => send({kind: 'scroll', scroll: [scrollX, scrollY]}), 150);
  }, true);
  const loaded = how => send({kind: 'load', nav: how, title: document.title});
  const entry = performance.getEntriesByType('navigation')[0];
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => loaded(entry ? entry.type : 'navigate'));
  else loaded(entry ? entry.type : 'navigate');
  window.addEventListener('pageshow', e => { if (e.persisted) loaded('back_forward'); });
})();
"""

# The ScreenLab bar of a headed recording: the goal, Stop and Undo last step, in a shadow root so the page's
# style cannot reach it; hidden while a screenshot or a tree is taken, and never recorded as an action.
BAR = r"""
((goal) => {
  if (window.top !== window) return;
  const build = () => {
    if (document.querySelector('[data-sl-recorder]')) return;
    const host = document.createElement('div');
    host.setAttribute('data-sl-recorder', '');
    host.style.cssText = 'position:fixed;left:50%;bottom:12px;transform:translateX(-50%);z-index:2147483647';
    const root = host.attachShadow({mode: 'closed'});
    root.innerHTML = `<style>
      .bar{display:flex;gap:10px;align-items:center;padding:8px 12px;border-radius:10px;background:#1f2937;color:#fff;
           font:13px/1.3 system-ui,sans-serif;box-shadow:0 4px 16px rgba(0,0,0,.3);max-width:720px}
      .dot{width:10px;height:10px;border-radius:50%;background:#ef4444}
      .goal{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;max-width:460px}
      button{font:inherit;padding:4px 10px;border-radius:6px;border:0;cursor:pointer}
      .stop{background:#ef4444;color:#fff}.undo{background:#e5e7eb;color:#111}</style>
      <div class="bar"><span class="dot"></span><b>ScreenLab</b><span class="goal"></span>
      <button class="undo">Undo last step</button><button class="stop">Stop</button></div>`;
    root.querySelector('.goal').textContent = goal;
    root.querySelector('.stop').onclick = () => window.__slRecord({kind: 'stop'});
    root.querySelector('.undo').onclick = () => window.__slRecord({kind: 'undo'});
    document.documentElement.appendChild(host);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', build); else build();
})
"""

HIDE_BAR = "v => { const b = document.querySelector('[data-sl-recorder]'); if (b) b.style.visibility = v; }"
