// How to run the estimate: llama.cpp's --fit plan on the chosen GPU (report.llamacpp_fit) and the engine's command
// line (report.command) with a copy button. The core builds both; this file only words and shows them.
/** One sentence for the fit plan, or null without one (another engine, no GPU chosen, -ngl given). Ollama's
 * command has no --n-cpu-moe: its llama-server's --fit moves the experts itself. */
export function fitPlanText(plan, t, f, engine = 'llamacpp') {
  if (!plan) return null;
  const parts = [];
  if (plan.step === 'none') parts.push(t('plan.fit.none', { context: f.count(plan.context) }));
  if (plan.context !== plan.context_start) {
    parts.push(t('plan.fit.context', { from: f.count(plan.context_start), to: f.count(plan.context) }));
  }
  if (plan.step === 'experts' && plan.cpu_expert_layers === 0) {
    parts.push(t('plan.fit.output'));
  } else if (plan.step === 'experts') {
    // --fit moves the last layers' experts, --n-cpu-moe N the first N: the same bytes when the layers are alike.
    if (engine === 'ollama') parts.push(t('plan.fit.expertsOllama', { count: f.count(plan.cpu_expert_layers) }));
    else parts.push(t('plan.fit.experts', { count: f.count(plan.cpu_expert_layers), n: plan.n_cpu_moe }));
  }
  if (plan.step === 'layers') {
    parts.push(t(plan.expert_layers ? 'plan.fit.layersExperts' : 'plan.fit.layers', { n: plan.gpu_layers, total: plan.total_layers }));
  }
  if (!plan.fits) parts.push(t('plan.fit.fails'));
  const bytes = t('plan.fit.bytes', {
    gpu: f.bytes(plan.gpu_bytes), model: f.bytes(plan.gpu_model_bytes), context: f.bytes(plan.gpu_context_bytes),
    compute: f.bytes(plan.gpu_compute_bytes), ram: f.bytes(plan.host_ram_bytes),
  });
  return `${t('plan.fit.intro', { free: f.bytes(plan.free_bytes), margin: f.bytes(plan.margin_bytes) })} ${parts.join('; ')}. ${bytes}`;
}

export function renderEnginePlan(dom, report, t, f) {
  const command = report.command;
  if (!command) {
    dom.enginePlan.hidden = true;
    return;
  }
  dom.enginePlan.hidden = false;
  const fit = fitPlanText(report.llamacpp_fit, t, f, report.inputs?.engine);
  dom.fitPlan.hidden = !fit;
  dom.fitPlan.textContent = fit ?? '';
  dom.commandLine.hidden = !command.text;
  dom.commandText.textContent = command.text;
  dom.commandNote.textContent = commandNote(command, t, f);
}

// The core's note in the page's language (the CLI keeps the core's English).
function commandNote(command, t, f) {
  const note = t.message(command.note, f);
  return command.text ? note : t('plan.none', { why: note });
}

/** The command shown, for the copy button. */
export const commandOf = (report) => report?.command?.text ?? '';
