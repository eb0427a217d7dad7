// English and German texts. t(key, params) fills {name} slots; unknown keys come back as the key itself,
// so a report line the table does not know yet still shows (by its key name) instead of vanishing.
const TEXTS = {
  en: {
    'app.tagline': 'How much GPU memory does this model need, and which GPUs fit it? Computed in your browser; nothing you enter leaves it.',
    'prefs.language': 'Language', 'prefs.unit': 'Unit',
    'inputs.title': 'Scenario', 'inputs.mode': 'Mode',
    'mode.inference': 'Inference', 'mode.finetune': 'Fine-tune', 'mode.train': 'Train',
    'mode.coming': 'Coming with the training engine: this version of the calculator answers inference questions only.',
    'inputs.model': 'Model', 'inputs.model.hint': 'Type to search the presets',
    'inputs.weights': 'Weight precision', 'inputs.context': 'Context length', 'inputs.context.unit': '(tokens)',
    'inputs.batch': 'Batch size', 'inputs.batch.unit': '(concurrent sequences)', 'inputs.gpu': 'GPU',
    'inputs.gpu.auto': 'Best match from the list', 'inputs.kv_dtype': 'KV cache precision', 'inputs.headroom': 'Headroom',
    'field.model': 'Model', 'field.weights': 'Weight precision', 'field.context': 'Context length', 'field.batch': 'Batch size',
    'field.gpu': 'GPU', 'field.mode': 'Mode', 'field.request': 'Request', 'field.kv_dtype': 'KV cache precision',
    'results.title': 'Memory needed', 'status.loading': 'Loading the calculator…',
    'status.stale': 'The results below are for the last valid input.', 'status.fix': 'Correct the input to see the memory estimate.',
    'status.failed': 'The calculator could not start: {message}',
    'headline.fits': 'Fits on one {gpu} with {free} free',
    'headline.tight': 'Fits on one {gpu}, but only {free} free: less than the headroom',
    'headline.needs': 'Needs {count} × {gpu}', 'headline.none': 'Does not fit on any GPU in the list',
    'total.label': 'Total', 'total.range': 'likely between {low} and {high}',
    'facts.params': '{n} parameters', 'facts.active': '{n} active', 'facts.layers': '{n} layers',
    'facts.heads': '{heads} heads, {kv} KV heads × {dim}', 'facts.kv': '{n} B KV per token',
    'breakdown.component': 'Component', 'breakdown.memory': 'Memory ({unit})', 'breakdown.share': 'Share',
    'breakdown.bar': 'Memory by component',
    'line.weights': 'Weights', 'line.kv_cache': 'KV cache', 'line.activations': 'Activations', 'line.overhead': 'Overhead',
    'line.gradients': 'Gradients', 'line.optimizer': 'Optimizer states', 'line.optimizer_states': 'Optimizer states',
    'line.adapters': 'Adapters', 'line.allocator_reserve': 'Allocator reserve', 'line.master_weights': 'fp32 master weights', 'line.total': 'Total',
    'explain.open': 'How {label} is computed', 'explain.formula': 'Formula', 'explain.values': 'With your inputs',
    'explain.source': 'Source', 'explain.close': 'Close',
    'actions.title': 'Share and export', 'actions.link': 'Copy link', 'actions.markdown': 'Copy as Markdown',
    'actions.csv': 'Download CSV', 'actions.copied': 'Copied.', 'actions.copyFailed': 'Copying failed: select the text and copy it yourself.',
    'gpus.title': 'GPUs', 'gpus.filter': 'Show', 'gpus.count': '{shown} of {total} GPUs',
    'gpus.legend': 'Fits: the total stays below {share} of the GPU\'s memory. Tight: it fits only by eating into that headroom. Apple chips count the share of unified memory macOS lets the GPU use by default.',
    'gpus.name': 'GPU', 'gpus.segment': 'Segment', 'gpus.memory': 'Memory', 'gpus.verdict': 'Verdict', 'gpus.needed': 'Count', 'gpus.free': 'Free',
    'gpus.sort': 'Sort by {column}',
    'segment.all': 'All', 'segment.consumer': 'Consumer', 'segment.workstation': 'Workstation', 'segment.datacenter': 'Data centre', 'segment.apple': 'Apple',
    'fit.fits': 'fits', 'fit.tight': 'tight', 'fit.does_not_fit': 'does not fit', 'fit.needs': 'does not fit — needs {n}',
    'charts.title': 'Memory as the scenario grows', 'charts.context': 'Memory vs context length', 'charts.batch': 'Memory vs batch size',
    'charts.x.context': 'context (tokens)', 'charts.x.batch': 'batch size', 'charts.capacity': '{gpu}: {memory}',
    'charts.svg': 'Download SVG', 'charts.png': 'Download PNG',
    'charts.desc': 'Stacked memory by component from {from} to {to}; the horizontal lines are the GPUs\' usable memory.',
    'embed.title': 'Embed this calculation', 'embed.kind': 'Embed as', 'embed.iframe': 'iframe', 'embed.element': '<vram-fit> element',
    'embed.code': 'Code to paste', 'embed.copy': 'Copy code', 'embed.open': 'Open full calculator',
    'footer.units': 'Formulas and sources: press any number. GB = 10⁹ bytes, GiB = 2³⁰ bytes.',
  },
  de: {
    'app.tagline': 'Wie viel GPU-Speicher braucht dieses Modell, und auf welche GPUs passt es? Berechnet in Ihrem Browser; nichts, was Sie eingeben, verlässt ihn.',
    'prefs.language': 'Sprache', 'prefs.unit': 'Einheit',
    'inputs.title': 'Szenario', 'inputs.mode': 'Modus',
    'mode.inference': 'Inferenz', 'mode.finetune': 'Feinabstimmung', 'mode.train': 'Training',
    'mode.coming': 'Kommt mit der Trainings-Engine: Diese Version des Rechners beantwortet nur Fragen zur Inferenz.',
    'inputs.model': 'Modell', 'inputs.model.hint': 'Tippen, um die Vorlagen zu durchsuchen',
    'inputs.weights': 'Gewichtsgenauigkeit', 'inputs.context': 'Kontextlänge', 'inputs.context.unit': '(Tokens)',
    'inputs.batch': 'Batchgröße', 'inputs.batch.unit': '(gleichzeitige Sequenzen)', 'inputs.gpu': 'GPU',
    'inputs.gpu.auto': 'Beste Wahl aus der Liste', 'inputs.kv_dtype': 'Genauigkeit des KV-Caches', 'inputs.headroom': 'Reserve',
    'field.model': 'Modell', 'field.weights': 'Gewichtsgenauigkeit', 'field.context': 'Kontextlänge', 'field.batch': 'Batchgröße',
    'field.gpu': 'GPU', 'field.mode': 'Modus', 'field.request': 'Anfrage', 'field.kv_dtype': 'Genauigkeit des KV-Caches',
    'results.title': 'Benötigter Speicher', 'status.loading': 'Der Rechner wird geladen…',
    'status.stale': 'Die Ergebnisse unten gelten für die letzte gültige Eingabe.', 'status.fix': 'Korrigieren Sie die Eingabe, um die Schätzung zu sehen.',
    'status.failed': 'Der Rechner konnte nicht starten: {message}',
    'headline.fits': 'Passt auf eine {gpu}, {free} bleiben frei',
    'headline.tight': 'Passt auf eine {gpu}, aber nur {free} frei: weniger als die Reserve',
    'headline.needs': 'Braucht {count} × {gpu}', 'headline.none': 'Passt auf keine GPU der Liste',
    'total.label': 'Summe', 'total.range': 'wahrscheinlich zwischen {low} und {high}',
    'facts.params': '{n} Parameter', 'facts.active': '{n} aktiv', 'facts.layers': '{n} Schichten',
    'facts.heads': '{heads} Köpfe, {kv} KV-Köpfe × {dim}', 'facts.kv': '{n} B KV pro Token',
    'breakdown.component': 'Bestandteil', 'breakdown.memory': 'Speicher ({unit})', 'breakdown.share': 'Anteil',
    'breakdown.bar': 'Speicher nach Bestandteil',
    'line.weights': 'Gewichte', 'line.kv_cache': 'KV-Cache', 'line.activations': 'Aktivierungen', 'line.overhead': 'Grundbedarf',
    'line.gradients': 'Gradienten', 'line.optimizer': 'Optimiererzustände', 'line.optimizer_states': 'Optimiererzustände',
    'line.adapters': 'Adapter', 'line.allocator_reserve': 'Allocator-Reserve', 'line.master_weights': 'fp32-Mastergewichte', 'line.total': 'Summe',
    'explain.open': 'So wird {label} berechnet', 'explain.formula': 'Formel', 'explain.values': 'Mit Ihren Eingaben',
    'explain.source': 'Quelle', 'explain.close': 'Schließen',
    'actions.title': 'Teilen und exportieren', 'actions.link': 'Link kopieren', 'actions.markdown': 'Als Markdown kopieren',
    'actions.csv': 'CSV herunterladen', 'actions.copied': 'Kopiert.', 'actions.copyFailed': 'Kopieren fehlgeschlagen: Text markieren und selbst kopieren.',
    'gpus.title': 'GPUs', 'gpus.filter': 'Anzeigen', 'gpus.count': '{shown} von {total} GPUs',
    'gpus.legend': 'Passt: Die Summe bleibt unter {share} des GPU-Speichers. Knapp: Es passt nur, wenn die Reserve angegriffen wird. Bei Apple-Chips zählt der Anteil des gemeinsamen Speichers, den macOS der GPU standardmäßig überlässt.',
    'gpus.name': 'GPU', 'gpus.segment': 'Segment', 'gpus.memory': 'Speicher', 'gpus.verdict': 'Ergebnis', 'gpus.needed': 'Anzahl', 'gpus.free': 'Frei',
    'gpus.sort': 'Nach {column} sortieren',
    'segment.all': 'Alle', 'segment.consumer': 'Endkunden', 'segment.workstation': 'Workstation', 'segment.datacenter': 'Rechenzentrum', 'segment.apple': 'Apple',
    'fit.fits': 'passt', 'fit.tight': 'knapp', 'fit.does_not_fit': 'passt nicht', 'fit.needs': 'passt nicht — braucht {n}',
    'charts.title': 'Speicher, wenn das Szenario wächst', 'charts.context': 'Speicher über der Kontextlänge', 'charts.batch': 'Speicher über der Batchgröße',
    'charts.x.context': 'Kontext (Tokens)', 'charts.x.batch': 'Batchgröße', 'charts.capacity': '{gpu}: {memory}',
    'charts.svg': 'SVG herunterladen', 'charts.png': 'PNG herunterladen',
    'charts.desc': 'Gestapelter Speicher nach Bestandteil von {from} bis {to}; die waagrechten Linien sind der nutzbare Speicher der GPUs.',
    'embed.title': 'Diese Rechnung einbetten', 'embed.kind': 'Einbetten als', 'embed.iframe': 'iframe', 'embed.element': '<vram-fit>-Element',
    'embed.code': 'Code zum Einfügen', 'embed.copy': 'Code kopieren', 'embed.open': 'Ganzen Rechner öffnen',
    'footer.units': 'Formeln und Quellen: auf eine Zahl drücken. GB = 10⁹ Byte, GiB = 2³⁰ Byte.',
  },
};

export const LANGUAGES = [{ code: 'en', name: 'English' }, { code: 'de', name: 'Deutsch' }];

const STORAGE_KEY = 'vramfit.lang';

// Remembered choice first, then the browser's language, then English.
export function initialLanguage() {
  let stored = null;
  try { stored = localStorage.getItem(STORAGE_KEY); } catch { /* storage blocked: follow the browser */ }
  if (stored && TEXTS[stored]) return stored;
  return (navigator.language ?? 'en').toLowerCase().startsWith('de') ? 'de' : 'en';
}

export function rememberLanguage(lang) {
  try { localStorage.setItem(STORAGE_KEY, lang); } catch { /* not remembered, still switched */ }
}

export function translator(lang) {
  const table = TEXTS[lang] ?? TEXTS.en;
  const t = (key, params = {}) => {
    const text = table[key] ?? TEXTS.en[key];
    if (text === undefined) return key.includes('.') ? key.slice(key.indexOf('.') + 1) : key;
    return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ''));
  };
  t.lang = TEXTS[lang] ? lang : 'en';
  t.has = (key) => key in table;
  return t;
}

// Static texts in the HTML carry data-i18n (textContent), data-i18n-label (aria-label) or
// data-i18n-title; switching the language rewrites them all.
export function applyStaticTexts(root, t) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll('[data-i18n-label]')) node.setAttribute('aria-label', t(node.dataset.i18nLabel));
  for (const node of root.querySelectorAll('[data-i18n-title]')) node.title = t(node.dataset.i18nTitle);
  if (root.documentElement) root.documentElement.lang = t.lang;
}
