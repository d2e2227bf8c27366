/**
 * The console's one stylesheet, inline under the page's nonce: no file to fetch, no build step. Scroll anchoring is
 * off: the live refresh replaces the nodes a browser would anchor to and puts the scroll position back itself, and
 * Chromium's anchoring then moved the page by the height of whatever changed above the old anchor.
 */
export const CONSOLE_CSS = `
:root { color-scheme: light dark; --fg: #1d2430; --muted: #5d6b7e; --bg: #f6f7f9; --card: #fff; --line: #d5dae1;
  --person: #b35c00; --running: #1f6feb; --blocked: #c62828; --done: #2e7d32; --accent: #6f42c1; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ee; --muted: #9aa5b4; --bg: #14181f; --card: #1d232c; --line: #343c48; } }
* { box-sizing: border-box; }
html { overflow-anchor: none; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header.top { display: flex; gap: 16px; align-items: center; padding: 10px 20px; background: var(--card); border-bottom: 1px solid var(--line); }
header.top .brand { font-weight: 600; } header.top nav { display: flex; gap: 12px; flex: 1; }
header.top form { margin: 0; }
main { padding: 16px 20px; }
a { color: var(--running); } code { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; background: rgba(127,127,127,.14); padding: 1px 4px; border-radius: 3px; }
h1 { font-size: 20px; margin: 4px 0 12px; } h2 { font-size: 15px; margin: 0 0 8px; }
.muted { color: var(--muted); } .small { font-size: 12px; }
form.filters { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin-bottom: 14px; }
form.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
input, select, button { font: inherit; padding: 4px 6px; border: 1px solid var(--line); border-radius: 4px; background: var(--card); color: var(--fg); }
button { cursor: pointer; }
.board { display: grid; grid-template-columns: repeat(4, minmax(220px, 1fr)); gap: 14px; align-items: start; }
@media (max-width: 1000px) { .board { grid-template-columns: repeat(2, minmax(200px, 1fr)); } }
@media (max-width: 600px) { .board { grid-template-columns: 1fr; } }
section.group { background: rgba(127,127,127,.06); border-radius: 8px; padding: 10px; border-top: 4px solid var(--line); }
section.group.waiting_on_person { border-top-color: var(--person); } section.group.running { border-top-color: var(--running); }
section.group.blocked { border-top-color: var(--blocked); } section.group.done { border-top-color: var(--done); }
.count { display: inline-block; min-width: 22px; text-align: center; border-radius: 10px; background: var(--line); padding: 0 6px; font-size: 12px; }
article.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; margin-bottom: 8px; }
article.card .key { font-weight: 600; } article.card p { margin: 4px 0; }
.action { border-left: 3px solid var(--accent); padding-left: 6px; }
.blockcode { color: var(--blocked); font-weight: 600; }
.grid2 { display: grid; grid-template-columns: minmax(300px, auto) minmax(320px, 1fr); gap: 18px; align-items: start; }
@media (max-width: 1000px) { .grid2 { grid-template-columns: 1fr; } }
.panel { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px; margin-bottom: 14px; overflow: auto; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
.meter { height: 8px; background: var(--line); border-radius: 4px; overflow: hidden; min-width: 120px; }
.meter > span { display: block; height: 100%; background: var(--running); }
.meter.over > span { background: var(--blocked); }
.meter progress { width: 100%; }
svg.graph { font: 11px system-ui, sans-serif; max-width: 100%; height: auto; }
svg.graph .shape, svg.graph .inner { fill: var(--card); stroke: var(--muted); stroke-width: 1.2; }
svg.graph .inner { fill: none; }
svg.graph .gate .shape { stroke: var(--person); } svg.graph .router .shape { stroke: var(--accent); }
svg.graph .end .shape { stroke: var(--done); }
svg.graph .visited .shape { fill: rgba(31,111,235,.10); }
svg.graph .current .shape { stroke: var(--blocked); stroke-width: 3; fill: rgba(198,40,40,.10); }
svg.graph text { fill: var(--fg); text-anchor: middle; } svg.graph text.role { fill: var(--muted); font-size: 10px; }
svg.graph text.outcome { text-anchor: start; fill: var(--muted); font-size: 9px; }
svg.graph .edge path { fill: none; stroke: var(--line); stroke-width: 1.3; }
svg.graph .edge.loop path { stroke-dasharray: 4 3; }
svg.graph .edge.taken path { stroke: var(--running); stroke-width: 2.6; }
svg.graph .edge.detour path { stroke: var(--person); stroke-dasharray: 6 3; }
svg.graph .arrow { fill: var(--muted); } svg.graph .arrow.taken { fill: var(--running); }
.legend span { margin-right: 12px; }
svg.graph .added .shape { stroke: var(--done); stroke-width: 3; fill: rgba(46,125,50,.14); }
svg.graph .removed .shape { stroke: var(--blocked); stroke-width: 2; stroke-dasharray: 5 3; fill: rgba(198,40,40,.06); }
svg.graph .removed text { fill: var(--muted); }
svg.graph .changed .shape { stroke: var(--person); stroke-width: 3; fill: rgba(179,92,0,.14); }
svg.graph .edge.added path { stroke: var(--done); stroke-width: 2.4; }
svg.graph .edge.removed path { stroke: var(--blocked); stroke-width: 1.6; stroke-dasharray: 5 3; }
svg.graph .edge.changed path { stroke: var(--person); stroke-width: 2.4; }
.change { border-left: 10px solid var(--line); padding-left: 4px; }
.change.added { border-left-color: var(--done); } .change.removed { border-left-color: var(--blocked); } .change.changed { border-left-color: var(--person); }
table.diff ul.fields { margin: 0; padding-left: 16px; }
.error { border-left: 4px solid var(--blocked); padding: 8px 12px; background: var(--card); }
`;
