// The extras below the answer: the GPU ranking (inference only), what would help and the two charts' curves. One
// scheduler asks them of the last answered scenario and renders them: once typing pauses after a change, and after
// the first answer is painted (then in turns with the browser, so a phone stays responsive while they are asked).
import { dom } from './dom.js';
import { page, view, shown, answerStands } from './store.js';
import { isTraining } from '../state.js';
import { renderGpuRanking } from '../render/gpu-ranking.js';
import { renderRemedies } from '../render/remedies.js';
import { renderCharts, curveQuestion } from '../render/charts.js';
import { ask, oneCard, renderDetails } from './answer.js';

// `parts` narrows the questions to 'curves' (what would help and the two curves) or 'ranking'.
function askExtras({ request, cards }, training, parts) {
  const curves = parts.includes('curves') ? { remedies: 'remedies', context: curveQuestion('context'), batch: curveQuestion('batch') } : {};
  const ranking = training || !parts.includes('ranking') ? {} : { ranking: { question: 'gpu_ranking', every_gpu: true } };
  if (!cards) return ask(request, { ...ranking, ...curves });
  const asked = parts.includes('curves') ? ask(request, curves) : { ok: true };
  if (!asked.ok || !ranking.ranking) return asked;
  const ranked = ask(oneCard(request), ranking);
  return ranked.ok ? { ...asked, ranking: ranked.ranking } : ranked;
}

const browserTurn = () => (document.visibilityState === 'visible' ? new Promise((resolve) => setTimeout(resolve)) : Promise.resolve());

/** After a change (or a unit change), once typing pauses: the extras in one call. */
export function scheduleExtras() {
  clearTimeout(page.extrasTimer);
  page.extrasTimer = setTimeout(() => askAndRender([['curves', 'ranking']], null), 60);
}

// The first frame carries the answer alone: the GPU table (80 rows), the embed code and the extras follow once it
// is painted, so their layout does not hold the first result back. Everything below the summary appears in one
// step, in its final order, so no section pushes another down; the work before it takes turns with the browser:
// the table, the curves and what would help, the ranking, then all of them shown.
export function afterFirstAnswer() {
  requestAnimationFrame(() => setTimeout(async () => {
    page.answerPainted = true;
    if (!page.report) return;
    renderDetails();
    await browserTurn();
    await askAndRender([['curves'], ['ranking']], browserTurn);
  }));
}

// Asks the extras of the current scenario in `steps` (each a list of parts), with `turn` between them (null: none),
// and renders them, as one call would answer: the scenario's error, should any part fail. An input changed or
// turned unusable meanwhile stops it: its own update shows what follows from it.
async function askAndRender(steps, turn) {
  const scenario = page.asked;
  const current = () => answerStands() && page.asked === scenario;
  if (!current()) return;
  const training = isTraining(page.state);
  let answers = { ok: true };
  for (const parts of steps) {
    const wanted = !(training && parts.length === 1 && parts[0] === 'ranking');  // training has no GPU ranking
    if (answers.ok && wanted) {
      const part = askExtras(scenario, training, parts);
      answers = part.ok ? { ...answers, ...part } : part;
    }
    if (turn) {
      await turn();
      if (!current()) return;
    }
  }
  renderExtras(answers);
  if (page.answerPainted) {
    dom.gpuSection.hidden = false;
    dom.embedSection.hidden = false;
  }
}

function renderExtras(extras) {
  clearTimeout(page.extrasTimer);
  if (!answerStands()) return;
  const training = isTraining(page.state);
  // The scenario answered a moment ago; should it fail now, each part shows that error in its place.
  const answers = extras.ok ? extras : { remedies: extras, context: extras, batch: extras, ...(training ? {} : { ranking: extras }) };
  page.charted = answers;
  drawCharts();
  dom.chartsSection.hidden = false;
  // What would help is judged on the chosen GPU when there is one; a training scenario has no GPU ranking.
  page.ranking = answers.ranking ?? null;
  page.remedies = answers.remedies;
  redrawRanking();
  renderRemedies(dom, page.remedies, view, page.codec);
}

export const redrawRanking = () => renderGpuRanking(dom, page.ranking, view);

// The charts are drawn at the width of the results, so that their 11 px labels stay 11 px on a phone.
function chartWidth() {
  const box = dom.chartsSection.parentElement;
  const style = getComputedStyle(box);
  return Math.floor(box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight));
}

function drawCharts() {
  view.chartWidth = chartWidth();
  renderCharts({ context: dom.chartContext, batch: dom.chartBatch }, page.charted, shown(), view);
}

export function watchChartWidth() {
  if (!('ResizeObserver' in window)) return;
  new ResizeObserver(() => {
    if (page.charted && answerStands() && chartWidth() !== view.chartWidth) drawCharts();
  }).observe(dom.chartsSection.parentElement);
}
