// The page's state, in one place: what the person asked (the URL's state), what the core answered, the files or Hub
// repository in use and the display choices. The other modules read and write it here; no element holds any of it.
export const page = {
  calculator: null,
  codec: null,  // the state's keys and forms, from the core's inputs table
  state: null,
  report: null,  // the last valid report
  detail: null,  // the same request on the chosen GPU (speed, cost, training time); null without one
  asked: null,  // the last answered change's {request, cards}: the ranking, remedies and curves are asked of it
  errorShown: false,  // an error stands in place of the answer
  waiting: false,  // the status line says what comes (a Hub repository being read)
  answerPainted: false,  // the first answer is on screen: the details below it follow every answer from here on
  modelFieldFollows: false,  // Back and Forward rewrite the model field even while it has the focus
  // A dropped or pasted config.json ({text, name}) stands in for the preset while it is loaded; a dropped .gguf or
  // .safetensors ({bytes, size, name}: its header only) or set of shards ({shards: [{name, size, bytes}], index,
  // name}) goes to the core's header readers, with the config.json if one was loaded (safetensors needs it for
  // the architecture). Both stay in this page: the URL cannot carry a file, so a shared link opens the preset
  // named in it.
  config: null,
  modelFile: null,
  // What the file box says: the files in use ({name, status()}), or a drop the page could not use ({name,
  // message()}), which stands as the error at the file field until another file, a model or "Back to the presets"
  // replaces it (status() and message() give the text in the language shown).
  fileNote: null,
  fileProblem: null,
  // A newer drop, paste or lookup supersedes a drop still reading (drops); a lookup still reading gives way only to
  // a newer lookup or to files that were read (takes): a refused drop leaves it running.
  drops: 0,
  takes: 0,
  // hub: the repository the model field names, {name, reading (read_model_name's), phase: 'offer' | 'reading' |
  // 'failed' | 'loaded', progress: [done, total], error, plan, readAt, controller}; null for a preset or a file.
  // Reading it fills `config` and `modelFile` as a drop does; the URL keeps the name, never anything read.
  hub: null,
  typedHub: null,  // a Hub name being typed (not yet the state's): the offer shows for it
  // draftHub: the draft the state names on the Hub, read when the person asks (page/draft-hub.js); null otherwise.
  draftHub: null,
  // draftProblem: files picked for the draft that the page could not use, or a name that is neither a preset nor a
  // Hub repository: {draft (the state's when it was said), message() (the text in the language shown)}, said under
  // the draft until a pick, a lookup or another draft replaces it (page/draft-hub.js).
  draftProblem: null,
  // alsoReads: the other models read, on the Hub (looked up) or from files here: name → {phase, read, error, file}
  // (page/also-models.js).
  alsoReads: null,
  // The last extras, re-rendered on a unit or language change and redrawn when the results change width.
  remedies: null,
  ranking: null,
  charted: null,
  extrasTimer: 0,  // the extras asked once typing pauses (page/extras.js)
};

// Display choices: language and unit are remembered in this browser, table order is per visit.
export const view = {
  t: null, f: null, segment: 'all', sort: 'verdict', direction: 'ascending', gpu: '', rankingAll: false,
  rankingSort: 'rank', rankingDirection: 'ascending', embedKind: 'iframe', draftChoices: '',
  // "Other models loaded first" (page/also-models.js): its rows ({model, context, said (what a Hub row's lookup
  // says, a function giving the text in the language shown)}: a row whose model is not chosen yet has model '' and
  // stays out of the state's `also`), the language they are drawn in, whether "Add a model" is wired, and the
  // refusal of the last files picked (fileProblem, a function giving the text; null when they were read).
  alsoModels: { rows: [], lang: null, wired: false, fileProblem: null },
};

// Training's names for the inputs the context and batch fields share with inference.
export const TRAINING_ALIASES = { sequence: 'context', micro_batch: 'batch' };

// What the summary shows: the run on the chosen GPU when there is one (vLLM sizes its batch defaults and KV
// capacity by the GPU, so its total can differ from the run over the whole list, which feeds the GPU table).
export const shown = () => page.detail ?? page.report;

// The GPU table (and CSV) over the whole list, with the chosen GPU's row from its own run, so the row agrees
// with the headline.
export function tableReport() {
  const { report, detail } = page;
  const own = detail?.gpus?.length === 1 ? detail.gpus[0] : null;  // different cards: each row is one card's
  return own ? { ...report, gpus: report.gpus.map((g) => (g.id === own.id ? own : g)), verdict: detail.verdict } : report;
}

/** An answer stands on screen (no error in its place). */
export const answerStands = () => Boolean(page.report) && !page.errorShown;
