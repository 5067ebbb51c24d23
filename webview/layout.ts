/** The panel's static skeleton; everything data-dependent is filled in by app.ts. */
export const LAYOUT = `
<header class="top">
  <h1>Solvability band</h1>
  <span class="meta" id="meta"></span>
  <span class="live" id="live" hidden title="a run is streaming results into this panel">● live</span>
</header>
<main class="grid">
  <section class="card" aria-labelledby="h-models">
    <h2 id="h-models">Tasks per band and mean pass@k, per model</h2>
    <div class="legend" id="legend" role="group" aria-label="band filter"></div>
    <div id="bars" class="bars"></div>
  </section>
  <section class="card" aria-labelledby="h-hist">
    <h2 id="h-hist">Success rate per task <span class="sub" id="hist-model"></span></h2>
    <div id="hist" class="chart-box"></div>
    <div class="thresholds">
      <label for="t-low">too hard at or below</label>
      <input type="range" id="t-low" min="0" max="0.95" step="0.05" aria-describedby="o-low">
      <output id="o-low" for="t-low"></output>
      <label for="t-high">too easy at or above</label>
      <input type="range" id="t-high" min="0.05" max="1" step="0.05" aria-describedby="o-high">
      <output id="o-high" for="t-high"></output>
      <vscode-button id="t-reset" secondary title="back to the report's thresholds">Reset</vscode-button>
    </div>
  </section>
  <section class="card wide" aria-labelledby="h-table">
    <h2 id="h-table">Tasks <span class="sub" id="table-count"></span></h2>
    <div class="toolbar">
      <vscode-single-select id="model" aria-label="model shown in the table and histogram"></vscode-single-select>
      <vscode-textfield id="filter" placeholder="Filter by id or path" aria-label="filter tasks by id or path"></vscode-textfield>
      <button class="chip only" id="only" hidden title="clear the selection made in the scatter"></button>
      <span class="spacer"></span>
      <span class="export-group" role="group" aria-label="export the tasks of a band">
        <label for="export-band" class="export-label">Export</label>
        <vscode-single-select id="export-band" aria-label="band to export"></vscode-single-select>
        <vscode-button id="export-json" title="save the tasks of this band as JSON">JSON</vscode-button>
        <vscode-button id="export-text" secondary title="save the task paths of this band, one per line">Paths</vscode-button>
        <span id="export-status" class="export-status" role="status" aria-live="polite"></span>
      </span>
    </div>
    <div id="table"></div>
  </section>
  <section class="card" aria-labelledby="h-compare">
    <h2 id="h-compare">Model vs model</h2>
    <div class="toolbar">
      <vscode-single-select id="cmp-a" aria-label="model A (x axis)"></vscode-single-select>
      <span>vs</span>
      <vscode-single-select id="cmp-b" aria-label="model B (y axis)"></vscode-single-select>
    </div>
    <p class="summary" id="cmp-summary"></p>
    <div id="scatter" class="chart-box"></div>
  </section>
  <section class="card" aria-labelledby="h-trend">
    <h2 id="h-trend">Checkpoint trend</h2>
    <div id="trend" class="chart-box"></div>
  </section>
</main>
<div id="status" class="status" role="status" aria-live="polite"></div>`;
