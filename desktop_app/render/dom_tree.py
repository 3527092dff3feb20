"""An Android uiautomator dump (`N.xml`) of a page rendered in a real browser.

`dom_tree_xml(page, package)` walks the DOM of a Playwright page in one `evaluate` call and writes the
hierarchy the way `uiautomator dump` does for an app, so our own rendered screens come with an
accessibility tree in the Sphinx layout (see desktop_app/a11y/tree.py for the reading side).

What the walk does:
* Only what a user can see becomes a node: script/style/head, `display: none`, `opacity: 0`,
  `visibility: hidden`, zero-size elements and elements outside the screen (or scrolled out of an
  overflow container) are left out; the visible children of an element without a node of its own move
  up to its parent. Bounds are CSS pixels times `devicePixelRatio` (screenshot pixels), rounded, and
  clipped to the screen and to the clipping ancestors.
* Wrappers that carry nothing (no text, no description, no id, no role, not interactable) are collapsed
  when they hold exactly one child and dropped when they hold none, as a native layout would not have
  them; everything that carries something stays, so a <button> holding a <span> label becomes a
  clickable Button with a separate, non-clickable TextView child (the label-vs-button situation of
  real dumps).
* class comes from the tag and the ARIA role (see `_WALK`), text is the element's own direct text (an
  input's value, else its placeholder, as Android shows the hint; a sensitive field's value, by the
  recorder's rule, is written as "(hidden)", never its text nor its length), content-desc is aria-label,
  alt or title, resource-id is `<package>:id/<id>` from the id attribute or `data-sl-id` (made a valid
  identifier: `add-to-bag` -> `add_to_bag`; a value already of the form `pkg:id/name` is kept).
* clickable: a, button, input, select, textarea, summary, [onclick], the roles button/link/checkbox/
  radio/switch/tab/menuitem/option, <label for=...>, and elements that set `cursor: pointer`
  themselves (a child inheriting it from its button does not count).
* An element with `data-sl-package="..."` and its subtree become a separate top-level node of that
  package, written before the app (how a phone's status bar and navigation bar appear in real dumps:
  `com.android.systemui`).
* The document is the top-level FrameLayout and the body the app's root layout; both span the whole
  screen. The body's resource-id is `android:id/content`, or `<package>:id/<activity_hint in
  snake_case>` when a hint is given (an activity's root layout, e.g. `ProductActivity` ->
  `product_activity`), unless the body has an id of its own.

Attribute values are page text and therefore untrusted: they are escaped, and characters XML 1.0
cannot hold (control characters, lone surrogates) are dropped.
"""

from __future__ import annotations

import re

# The attributes of a uiautomator node, in the dump's order.
ATTRIBUTE_ORDER = ("index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked",
                   "clickable", "enabled", "focusable", "focused", "scrollable", "long-clickable", "password",
                   "selected", "visible-to-user", "bounds")
SYSTEM_UI = "com.android.systemui"
_PACKAGE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$")
# Not allowed in XML 1.0 even as character references.
_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

_WALK = r"""
async ({pkg, activity}) => {
  await document.fonts.ready;
  document.body && document.body.getBoundingClientRect();  // force layout
  const dpr = window.devicePixelRatio || 1;
  const SW = Math.round(window.innerWidth * dpr), SH = Math.round(window.innerHeight * dpr);
  const SCREEN = [0, 0, SW, SH];
  const SKIP = new Set(['script', 'style', 'head', 'meta', 'link', 'title', 'noscript', 'template', 'br', 'wbr',
                        'datalist', 'option', 'optgroup', 'param', 'source', 'track', 'area', 'map', 'base']);
  const LEAF = new Set(['input', 'textarea', 'select', 'img', 'svg', 'canvas', 'video', 'audio', 'iframe',
                        'object', 'embed', 'progress', 'meter', 'picture']);
  const TEXT_INPUTS = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date', 'time',
                               'datetime-local', 'month', 'week']);
  const CLICK_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
                               'menuitemcheckbox', 'menuitemradio', 'option']);
  const CHECK_ROLES = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);
  const W = 'android.widget.';
  const ROLE_CLASS = {checkbox: W + 'CheckBox', menuitemcheckbox: W + 'CheckBox', radio: W + 'RadioButton',
                      menuitemradio: W + 'RadioButton', switch: W + 'Switch', button: W + 'Button',
                      link: W + 'TextView', img: W + 'ImageView', image: W + 'ImageView', slider: W + 'SeekBar',
                      progressbar: W + 'ProgressBar', combobox: W + 'Spinner', listbox: W + 'Spinner'};

  const squash = s => (s || '').replace(/\s+/g, ' ').trim();
  // The recorder's rule for a field whose content must not be kept (record/page_script.py masks the same
  // fields in screenshots): a password, a card/one-time-code/password autocomplete, or [data-sensitive].
  const HIDDEN = '(hidden)';
  const SENSITIVE_TOKENS = /^(cc-|one-time-code$|current-password$|new-password$)/;
  const sensitive = (el, tag, type) => {
    if (type === 'password') return true;
    const tokens = (el.getAttribute('autocomplete') || '').toLowerCase().split(/\s+/);
    if (tokens.some(t => SENSITIVE_TOKENS.test(t))) return true;
    const marked = el.closest('[data-sensitive]');
    return !!marked && marked.getAttribute('data-sensitive') !== 'false';
  };
  const ownText = el => {
    let t = '';
    for (const n of el.childNodes) if (n.nodeType === Node.TEXT_NODE) t += n.data + ' ';
    return squash(t);
  };
  const ident = (raw, p) => {
    raw = String(raw);
    if (/^[A-Za-z][\w.]*:id\/\w+$/.test(raw)) return raw;
    const name = raw.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
    return name ? p + ':id/' + name : '';
  };
  const snake = s => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  const meet = (a, b) => [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
  const empty = b => b[2] - b[0] < 1 || b[3] - b[1] < 1;
  const pixels = r => [r.left, r.top, r.right, r.bottom].map(v => Math.round(v * dpr));

  function describe(el, tag) {
    let desc = el.getAttribute('aria-label') || '';
    const by = el.getAttribute('aria-labelledby');
    if (!desc && by) {
      desc = by.split(/\s+/).map(id => document.getElementById(id)).filter(Boolean)
        .map(e => e.textContent).join(' ');
    }
    if (!desc) desc = el.getAttribute('alt') || '';
    if (!desc) desc = el.getAttribute('title') || '';
    if (!desc && tag === 'svg') {
      const t = el.querySelector('title');
      if (t) desc = t.textContent;
    }
    return squash(desc);
  }

  // One element: the list of nodes it contributes to its parent (its own, or its children's when it has
  // none). Nodes of another package go to `windows` instead.
  function visit(el, clip, parentCursor, p, windows, place) {
    const tag = el.localName.toLowerCase();
    if (SKIP.has(tag)) return [];
    const st = getComputedStyle(el);
    if (st.display === 'none' || parseFloat(st.opacity) === 0) return [];
    if (tag === 'input' && (el.getAttribute('type') || '').toLowerCase() === 'hidden') return [];
    const own = el.getAttribute('data-sl-package');
    const apart = !!own && own !== p && place !== 'root';
    const mine = own || p;
    const base = st.position === 'fixed' ? SCREEN : clip;
    const raw = pixels(el.getBoundingClientRect());
    const bounds = place ? SCREEN : meet(raw, base);
    const clips = st.overflowX !== 'visible' || st.overflowY !== 'visible';
    const inner = clips && !place ? meet(base, raw) : base;

    const kids = [];
    if (!LEAF.has(tag) && !empty(inner)) {
      for (const child of el.children) {
        kids.push(...visit(child, inner, st.cursor, mine, windows, child === document.body ? 'body' : ''));
      }
    }
    const shown = place || (st.display !== 'contents' && st.visibility === 'visible' && !empty(bounds));
    if (!shown) return kids;

    const role = (el.getAttribute('role') || '').toLowerCase();
    const type = tag === 'input' ? (el.getAttribute('type') || 'text').toLowerCase() : '';
    const editable = tag === 'textarea' || (tag === 'input' && TEXT_INPUTS.has(type)) || role === 'textbox'
                     || role === 'searchbox'
                     || (el.hasAttribute('contenteditable') && el.getAttribute('contenteditable') !== 'false');
    let text = '';
    const secret = sensitive(el, tag, type);
    if (tag === 'input' || tag === 'textarea') {
      if (editable) {
        // a sensitive field shows that it holds something, not what nor how long (bullets would give the length)
        const value = secret && el.value ? HIDDEN : el.value;
        text = value || el.getAttribute('placeholder') || '';
      } else if (['button', 'submit', 'reset'].includes(type)) {
        text = el.value || '';
      }
    } else if (tag === 'select') {
      const chosen = el.selectedOptions && el.selectedOptions[0];
      text = chosen ? (secret ? HIDDEN : squash(chosen.textContent)) : '';
    } else if (tag !== 'svg') {
      text = ownText(el);
      if (secret && text && editable) text = HIDDEN;  // a contenteditable marked sensitive
    }
    const desc = describe(el, tag);
    let rid = el.id ? ident(el.id, mine) : (el.dataset && el.dataset.slId ? ident(el.dataset.slId, mine) : '');
    if (place === 'body' && !rid) rid = activity ? ident(snake(activity), mine) : 'android:id/content';

    const ownPointer = st.cursor === 'pointer' && parentCursor !== 'pointer';
    const clickable = ['a', 'button', 'input', 'select', 'textarea', 'summary'].includes(tag)
                      || el.hasAttribute('onclick') || typeof el.onclick === 'function' || CLICK_ROLES.has(role)
                      || (tag === 'label' && !!el.htmlFor && !!el.control) || ownPointer;
    const checkInput = tag === 'input' && (type === 'checkbox' || type === 'radio');
    const checkable = checkInput || CHECK_ROLES.has(role) || el.hasAttribute('aria-checked')
                      || el.hasAttribute('aria-pressed');
    const checked = checkInput ? el.checked
                    : (el.getAttribute('aria-checked') === 'true' || el.getAttribute('aria-pressed') === 'true');
    const enabled = !(el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true');
    const focusable = clickable || editable || el.tabIndex >= 0;
    const focused = el === document.activeElement && el !== document.body && el !== document.documentElement;
    let scrollY = /(auto|scroll)/.test(st.overflowY) && el.scrollHeight > el.clientHeight + 1;
    let scrollX = /(auto|scroll)/.test(st.overflowX) && el.scrollWidth > el.clientWidth + 1;
    if (el === document.scrollingElement) {
      scrollY = el.scrollHeight > window.innerHeight + 1;
      scrollX = el.scrollWidth > window.innerWidth + 1;
    }
    const scrollable = scrollY || scrollX;

    let cls = '';
    if (editable) cls = W + 'EditText';
    else if (tag === 'input') {
      cls = {checkbox: 'CheckBox', radio: 'RadioButton', range: 'SeekBar', image: 'ImageButton'}[type] || 'Button';
      cls = W + cls;
    } else if (tag === 'select') cls = W + 'Spinner';
    else if (ROLE_CLASS[role]) cls = ROLE_CLASS[role];
    else if (tag === 'button') {
      cls = W + (!squash(el.innerText) && el.querySelector('svg, img') ? 'ImageButton' : 'Button');
    } else if (['img', 'svg', 'canvas', 'picture', 'video'].includes(tag)) cls = W + 'ImageView';
    else if (tag === 'progress' || tag === 'meter') cls = W + 'ProgressBar';
    else if (tag === 'iframe') cls = 'android.webkit.WebView';
    else if (tag === 'a' && (text || !kids.length)) cls = W + 'TextView';
    const widget = !!cls;

    if (!place && !apart && !widget && !clickable && !checkable && !scrollable && !focusable && !text && !desc
        && !rid && !role) {
      if (kids.length <= 1) return kids;  // an empty wrapper: collapsed, or dropped when it holds nothing
    }
    if (!cls) {
      if (place) cls = W + 'FrameLayout';
      else if (kids.length) {
        if (scrollable) cls = W + (scrollX && !scrollY ? 'HorizontalScrollView' : 'ScrollView');
        else if (tag === 'ul' || tag === 'ol' || role === 'list') cls = W + 'ListView';
        else if (st.display.includes('flex')) cls = W + 'LinearLayout';
        else if (st.display.includes('grid')) cls = 'android.view.ViewGroup';
        else if (st.position === 'fixed' || st.position === 'absolute') cls = W + 'FrameLayout';
        else cls = kids.length > 1 ? W + 'LinearLayout' : W + 'FrameLayout';
      } else cls = text ? W + 'TextView' : 'android.view.View';
    }
    const node = {
      attrs: {
        'text': text, 'resource-id': rid, 'class': cls, 'package': mine, 'content-desc': desc,
        'checkable': checkable, 'checked': !!checked, 'clickable': clickable, 'enabled': enabled,
        'focusable': focusable, 'focused': focused, 'scrollable': scrollable, 'long-clickable': editable,
        'password': type === 'password', 'selected': el.getAttribute('aria-selected') === 'true',
        'visible-to-user': true, 'bounds': bounds,
      },
      children: kids,
    };
    if (apart) {
      windows.push(node);
      return [];
    }
    return [node];
  }

  const windows = [];
  const app = visit(document.documentElement, SCREEN, 'auto', pkg, windows, 'root')[0];
  return {windows, app, screen: [SW, SH]};
}
"""




def dom_tree_xml(page, package: str, activity_hint: str = "") -> str:
    """A uiautomator dump of the page as it is rendered now (see the module docstring)."""
    if not _PACKAGE.match(package):
        raise ValueError(f"{package!r} is not an Android package name")
    walk = page.evaluate(_WALK, {"pkg": package, "activity": activity_hint or ""})
    roots = [*walk["windows"], walk["app"]]
    return tree_xml(roots)


def tree_xml(roots: list[dict]) -> str:
    """Write nodes ({attrs, children}; bounds as [x1, y1, x2, y2]) as a uiautomator dump."""
    out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", '<hierarchy rotation="0">']

    def write(node: dict, index: int, depth: int) -> None:
        attrs = {"index": str(index)}
        for key, value in node["attrs"].items():
            if key == "bounds":
                x1, y1, x2, y2 = (int(v) for v in value)
                value = f"[{x1},{y1}][{x2},{y2}]"
            elif isinstance(value, bool):
                value = "true" if value else "false"
            attrs[key] = str(value)
        keys = [k for k in ATTRIBUTE_ORDER if k in attrs] + [k for k in attrs if k not in ATTRIBUTE_ORDER]
        text = " ".join(f'{k}="{escape(attrs[k])}"' for k in keys)
        pad = "  " * depth
        children = node.get("children") or []
        if not children:
            out.append(f"{pad}<node {text} />")
            return
        out.append(f"{pad}<node {text}>")
        for i, child in enumerate(children):
            write(child, i, depth + 1)
        out.append(f"{pad}</node>")

    for root in roots:
        write(root, 0, 1)  # every top-level node (window) has index 0 in real dumps
    out.append("</hierarchy>")
    return "\n".join(out) + "\n"


def escape(value: str) -> str:
    """An attribute value safe inside double quotes; newlines and tabs survive as character references."""
    value = _INVALID.sub("", value)
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))
