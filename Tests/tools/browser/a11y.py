"""Accessibility assertions for a page, written out because axe-core cannot be installed here.

Each check returns a list of problems (empty when the page passes): accessible names of controls, image
alternatives, labels, headings, language, WCAG 2.2 AA text contrast, and keyboard focus order and visibility.
"""

# Runs in the page: every problem the static checks find, as strings.
STATIC_CHECKS = r"""
() => {
  const problems = [];
  const visible = (el) => {
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') return false;
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && !el.closest('[hidden], [aria-hidden="true"]');
  };
  const describe = (el) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : ''} "${(el.textContent || el.value || '').trim().slice(0, 40)}"`;
  const nameOf = (el) => {
    if (el.getAttribute('aria-label')?.trim()) return el.getAttribute('aria-label').trim();
    const by = el.getAttribute('aria-labelledby');
    if (by) return by.split(/\s+/).map((id) => document.getElementById(id)?.textContent || '').join(' ').trim();
    if (el.labels && el.labels.length) return [...el.labels].map((l) => l.textContent).join(' ').trim();
    if (['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)) return (el.getAttribute('title') || '').trim();
    const text = [...el.querySelectorAll('img[alt]')].map((i) => i.alt).join(' ') + ' ' + el.textContent;
    return (text.trim() || el.getAttribute('title') || '').trim();
  };
  const controls = document.querySelectorAll('a[href], button, input:not([type="hidden"]), select, textarea, iframe, [role="button"], [role="dialog"], [role="alertdialog"], progress');
  for (const el of controls) {
    if (!visible(el) && el.tagName !== 'INPUT') continue;
    const name = el.tagName === 'IFRAME' ? el.title : nameOf(el);
    if (!name) problems.push(`no accessible name: ${describe(el)}`);
  }
  for (const img of document.querySelectorAll('img')) if (!img.hasAttribute('alt')) problems.push(`image without alt: ${img.src.slice(0, 80)}`);
  if (!document.documentElement.lang) problems.push('the page has no lang');
  if (!document.title.trim()) problems.push('the page has no title');
  const headings = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].filter(visible);
  const ones = headings.filter((h) => h.tagName === 'H1');
  if (ones.length !== 1) problems.push(`${ones.length} h1 headings (one expected)`);
  let level = 0;
  for (const h of headings) {
    const next = Number(h.tagName[1]);
    if (level && next > level + 1) problems.push(`heading level skips from h${level} to h${next}: ${describe(h)}`);
    level = next;
  }
  for (const el of document.querySelectorAll('[tabindex]')) if (Number(el.getAttribute('tabindex')) > 0) problems.push(`positive tabindex: ${describe(el)}`);
  const ids = {};
  for (const el of document.querySelectorAll('[id]')) { ids[el.id] = (ids[el.id] || 0) + 1; }
  for (const [id, count] of Object.entries(ids)) if (count > 1) problems.push(`id "${id}" used ${count} times`);

  // WCAG 2.2 AA contrast: 4.5:1 for text, 3:1 for large text (24px, or 18.66px bold).
  const parse = (color) => { const m = color.match(/rgba?\(([^)]+)\)/); if (!m) return null; const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
  const luminance = ({ r, g, b }) => { const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; };
  const blend = (top, bottom) => ({ r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a), b: top.b * top.a + bottom.b * (1 - top.a), a: 1 });
  const background = (el) => {
    const layers = [];
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.backgroundImage !== 'none' && node !== document.documentElement && node !== document.body) return null;
      const color = parse(style.backgroundColor);
      if (color && color.a > 0) { layers.push(color); if (color.a >= 1) break; }
    }
    let result = { r: 255, g: 255, b: 255, a: 1 };
    for (const layer of layers.reverse()) result = blend(layer, result);
    return result;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  while (walker.nextNode()) {
    const text = walker.currentNode;
    const el = text.parentElement;
    if (!text.textContent.trim() || seen.has(el) || !visible(el) || el.closest('.visually-hidden, button:disabled, option')) continue;
    seen.add(el);
    const style = getComputedStyle(el);
    const fg = parse(style.color), bg = background(el);
    if (!fg || !bg) continue;
    const opacity = [...function* () { for (let n = el; n; n = n.parentElement) yield Number(getComputedStyle(n).opacity); }()].reduce((a, b) => a * b, 1);
    const shown = blend({ ...fg, a: fg.a * opacity }, bg);
    const [l1, l2] = [luminance(shown), luminance(bg)].sort((a, b) => b - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
    const needed = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < needed) problems.push(`contrast ${ratio.toFixed(2)}:1 < ${needed}:1: ${describe(el)}`);
  }
  return problems;
}
"""

# Runs in the page after a Tab: what has the focus, whether it shows that it has it, and where it is in the document.
FOCUSED = r"""
() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  const indicator = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2) || style.boxShadow !== 'none';
  const all = [...document.querySelectorAll('*')];
  return { tag: el.tagName.toLowerCase(), text: (el.getAttribute('aria-label') || el.textContent || el.value || '').trim().slice(0, 40),
           index: all.indexOf(el), visible: box.width > 0 && box.height > 0, indicator };
}
"""


def static_problems(page):
    return page.evaluate(STATIC_CHECKS)


def focus_problems(page, presses=25):
    """Tabs through the page from the top: the skip link first, focus always visible, order following the document."""
    problems = []
    # Focusing the body makes it the starting point of sequential focus navigation: the next Tab goes to the first control.
    page.evaluate("() => { const b = document.body; b.setAttribute('tabindex', '-1'); b.focus(); b.removeAttribute('tabindex'); window.scrollTo(0, 0); }")
    order = []
    for press in range(presses):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused is None:
            break
        if press == 0 and "Skip to content" not in focused["text"] and focused["tag"] != "iframe":
            problems.append(f"the first Tab reaches {focused['tag']} \"{focused['text']}\", not the skip link")
        if not focused["visible"]:
            problems.append(f"focus on an invisible element: {focused['tag']} \"{focused['text']}\"")
        if not focused["indicator"]:
            problems.append(f"no visible focus indicator on {focused['tag']} \"{focused['text']}\"")
        if order and focused["index"] < order[-1] and focused["index"] != order[0]:
            problems.append(f"focus moves backwards to {focused['tag']} \"{focused['text']}\"")
        if focused["index"] in order:
            break
        order.append(focused["index"])
    if len(order) < 2:
        problems.append("the keyboard reaches fewer than two controls")
    return problems
