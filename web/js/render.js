// Renders a core report into the page. Text goes in with textContent only: names from the URL or a
// config file can never become markup.
import * as fmt from './format.js';

const LINES = [
  { key: 'weights', label: 'Weights' },
  { key: 'kv_cache', label: 'KV cache' },
  { key: 'activations', label: 'Activations' },
  { key: 'overhead', label: 'Overhead' },
];
const VERDICT = { fits: 'fits', tight: 'tight', does_not_fit: 'does not fit' };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === 'class') node.className = value;
    else if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function explanation(report, key) {
  const x = report.explanations.find((e) => e.key === key);
  if (!x) return el('span');
  return el(
    'details',
    { class: 'why' },
    el('summary', { text: 'formula' }),
    el('p', {}, el('code', { text: x.formula })),
    el('p', {}, el('code', { text: x.values })),
    el('p', { class: 'source', text: `Source: ${x.source}` }),
  );
}

export function renderReport(dom, report) {
  const { breakdown } = report;
  dom.totalGb.textContent = `${fmt.gb(breakdown.total)} GB`;
  dom.totalGib.textContent = `(${fmt.gib(breakdown.total)} GiB)`;
  const m = report.model;
  const facts = [
    `${fmt.billions(m.params_total)} parameters`,
    m.params_active !== m.params_total ? `${fmt.billions(m.params_active)} active` : null,
    m.layers ? `${m.layers} layers` : null,
    m.kv_heads ? `${m.attention_heads} heads, ${m.kv_heads} KV heads × ${m.head_dim}` : null,
    `${fmt.count(report.kv_cache.bytes_per_token)} B KV per token`,
  ].filter(Boolean);
  dom.modelFacts.textContent = `${m.name}: ${facts.join(' · ')}`;

  dom.bar.replaceChildren(
    ...LINES.filter(({ key }) => breakdown[key] > 0).map(({ key, label }) => {
      const seg = el('span', { class: `seg seg-${key}`, title: `${label}: ${fmt.gb(breakdown[key])} GB` });
      seg.style.flexGrow = String(breakdown[key]);
      return seg;
    }),
  );
  dom.bar.setAttribute(
    'aria-label',
    LINES.map(({ key, label }) => `${label} ${fmt.share(breakdown[key], breakdown.total)}`).join(', '),
  );

  const rows = LINES.map(({ key, label }) =>
    el(
      'tr',
      { 'data-line': key },
      el('th', { scope: 'row' }, el('span', { class: `swatch seg-${key}`, 'aria-hidden': 'true' }), label, explanation(report, key)),
      el('td', { class: 'num', text: fmt.gb(breakdown[key]) }),
      el('td', { class: 'num', text: fmt.gib(breakdown[key]) }),
      el('td', { class: 'num', text: fmt.share(breakdown[key], breakdown.total) }),
    ),
  );
  rows.push(
    el(
      'tr',
      { class: 'total', 'data-line': 'total' },
      el('th', { scope: 'row' }, 'Total', explanation(report, 'total')),
      el('td', { class: 'num', 'data-testid': 'total-gb-cell', text: fmt.gb(breakdown.total) }),
      el('td', { class: 'num', text: fmt.gib(breakdown.total) }),
      el('td', { class: 'num', text: fmt.share(1, 1) }),
    ),
  );
  dom.breakdown.replaceChildren(...rows);
  dom.notes.replaceChildren(...report.notes.map((n) => el('li', { text: n })));

  dom.headroom.textContent = fmt.share(1 - report.inputs.headroom, 1);
  const order = { fits: 0, tight: 1, does_not_fit: 2 };
  const gpus = [...report.gpus].sort((a, b) => order[a.fit] - order[b.fit] || a.usable_bytes - b.usable_bytes);
  dom.gpus.replaceChildren(
    ...gpus.map((g) => {
      let verdict = VERDICT[g.fit];
      if (g.fit === 'does_not_fit') verdict += g.gpus_needed > 1 ? ` — needs ${g.gpus_needed}` : '';
      return el(
        'tr',
        { class: `fit-${g.fit}`, 'data-gpu': g.id },
        el('th', { scope: 'row', text: g.name }),
        el('td', { class: 'num', text: `${fmt.gibShort(g.usable_bytes)} GiB` }),
        el('td', {}, el('span', { class: `badge badge-${g.fit}`, text: verdict })),
        el('td', { class: 'num', text: `${g.free_bytes >= 0 ? '' : '−'}${fmt.gibShort(Math.abs(g.free_bytes))} GiB` }),
      );
    }),
  );
}

export function fillSelect(select, options, selected) {
  select.replaceChildren(...options.map(({ value, label }) => el('option', { value, text: label })));
  select.value = selected;
}

export function fillSegmented(container, name, options, selected) {
  container.replaceChildren(
    ...options.map(({ value, label, title }) => {
      const input = el('input', { type: 'radio', name, value, id: `${name}-${value}` });
      input.checked = value === selected;
      return el('label', { class: 'segment', for: `${name}-${value}`, title }, input, el('span', { text: label }));
    }),
  );
}
