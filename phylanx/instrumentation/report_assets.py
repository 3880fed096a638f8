# ruff: noqa: E501  (JavaScript and CSS text: their lines are not Python's)
"""The CSS and JavaScript of the HTML report, inlined into every report (no network).

The script reads the JSON data block ``#phylanx-data`` and draws: the Gantt chart
on a canvas (wheel: zoom at the pointer, drag: pan, hover: the span's details),
the sortable counters table, the tree toggle (inclusive / exclusive) and the
cross-highlighting of Python and PhySL lines and tree nodes.
"""

CSS = """
body{font:13px/1.4 Helvetica,Arial,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#26324a;color:#fff;padding:10px 18px}
header h1{font-size:17px;margin:0} header .meta{opacity:.8;font-size:12px}
section{background:#fff;margin:12px 18px;padding:10px 14px;border:1px solid #ddd;
border-radius:6px} h2{font-size:15px;margin:4px 0 8px}
.warn{color:#a00;font-weight:bold}
#gantt-wrap{position:relative;overflow:hidden} canvas{display:block;width:100%;cursor:grab}
#tip{position:absolute;pointer-events:none;background:#ffffe8;border:1px solid #aaa;
padding:3px 6px;font-size:12px;display:none;white-space:pre;z-index:2}
table{border-collapse:collapse;font-size:12px} th,td{padding:2px 8px;border-bottom:1px solid #eee;
text-align:right} th{cursor:pointer;background:#f0f0f0;position:sticky;top:0} td.l,th.l{text-align:left}
th.sorted::after{content:" \\25BE"} .scroll{max-height:360px;overflow:auto}
.tree{overflow:auto;max-height:640px;border:1px solid #eee}
.src{display:flex;gap:12px} .src pre{flex:1;margin:0;overflow:auto;max-height:480px;
background:#f7f7f7;border:1px solid #e4e4e4;padding:4px 0;font-size:12px}
.src .ln{display:block;padding:0 8px;white-space:pre} .src .ln i{color:#999;font-style:normal;
display:inline-block;width:3.2em} .hl{background:#ffe58a!important}
g.node.hl rect, g.node.hl polygon, g.node.hl path{stroke:#d00!important;stroke-width:3px}
.legend span{display:inline-block;width:11px;height:11px;margin:0 3px 0 10px;vertical-align:-1px}
button{font-size:12px;margin-right:6px}
"""

JS = r"""
(function(){
const D = JSON.parse(document.getElementById('phylanx-data').textContent);
const COL = {node:'#f28e2b', task:'#4e79a7', collective:'#e15759', remote:'#59a14f',
             wait:'#b07aa1'};
// ---- Gantt -------------------------------------------------------------------
const cv = document.getElementById('gantt'), tip = document.getElementById('tip');
if (cv) {
  const ctx = cv.getContext('2d'), ROW = 22, LABEL = 210, TOP = 18;
  let t0 = D.gantt.start, t1 = Math.max(D.gantt.end, t0 + 1), drag = null;
  const rows = D.gantt.tracks;
  function size(){ cv.width = cv.clientWidth * devicePixelRatio;
    cv.height = (TOP + rows.length * ROW + 4) * devicePixelRatio;
    cv.style.height = (TOP + rows.length * ROW + 4) + 'px'; draw(); }
  function x(t){ return LABEL + (t - t0) / (t1 - t0) * (cv.clientWidth - LABEL - 8); }
  function draw(){
    const W = cv.clientWidth; ctx.setTransform(devicePixelRatio,0,0,devicePixelRatio,0,0);
    ctx.clearRect(0,0,W,cv.clientHeight); ctx.font = '11px Helvetica,Arial';
    const step = niceStep((t1 - t0) / 8); ctx.fillStyle = '#888'; ctx.strokeStyle = '#eee';
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
      const px = x(t); ctx.beginPath(); ctx.moveTo(px, TOP - 4); ctx.lineTo(px, cv.clientHeight); ctx.stroke();
      ctx.fillText(fmt(t), px + 2, 11); }
    rows.forEach((r, i) => {
      const y = TOP + i * ROW; ctx.fillStyle = i % 2 ? '#fff' : '#f6f6f6'; ctx.fillRect(0, y, W, ROW);
      ctx.fillStyle = '#333'; ctx.fillText(r.label.slice(0, 34), 4, y + 15);
      ctx.save(); ctx.beginPath(); ctx.rect(LABEL, y, W - LABEL, ROW); ctx.clip();
      for (const s of r.spans) {
        const a = x(s[0]), b = x(s[0] + s[1]); if (b < LABEL || a > W) continue;
        const d = Math.min(s[4], 3), h = ROW - 4 - d * 4;
        ctx.fillStyle = COL[D.gantt.cats[s[3]]] || '#bab0ac';
        ctx.fillRect(a, y + 2 + d * 2, Math.max(1, b - a), h); }
      ctx.restore(); });
  }
  function niceStep(v){ const p = Math.pow(10, Math.floor(Math.log10(v))); const m = v / p;
    return p * (m < 2 ? 1 : m < 5 ? 2 : 5); }
  function fmt(us){ return us >= 1e6 ? (us/1e6).toFixed(2)+' s' : us >= 1e3 ? (us/1e3).toFixed(2)+' ms' : us.toFixed(1)+' us'; }
  function at(ev){ const r = cv.getBoundingClientRect(); return [ev.clientX - r.left, ev.clientY - r.top]; }
  cv.addEventListener('wheel', ev => { ev.preventDefault(); const [px] = at(ev);
    if (px < LABEL) return; const t = t0 + (px - LABEL) / (cv.clientWidth - LABEL - 8) * (t1 - t0);
    const k = ev.deltaY > 0 ? 1.25 : 0.8; t0 = t - (t - t0) * k; t1 = t + (t1 - t) * k; draw(); });
  cv.addEventListener('mousedown', ev => { drag = [at(ev)[0], t0, t1]; });
  window.addEventListener('mouseup', () => { drag = null; });
  cv.addEventListener('mousemove', ev => {
    const [px, py] = at(ev);
    if (drag) { const dt = (px - drag[0]) / (cv.clientWidth - LABEL - 8) * (drag[2] - drag[1]);
      t0 = drag[1] - dt; t1 = drag[2] - dt; draw(); return; }
    const i = Math.floor((py - TOP) / ROW), r = rows[i]; let hit = null;
    if (r && px > LABEL) { const t = t0 + (px - LABEL) / (cv.clientWidth - LABEL - 8) * (t1 - t0);
      for (const s of r.spans) if (s[0] <= t && t <= s[0] + s[1] && (!hit || s[4] >= hit[4])) hit = s; }
    if (hit) { tip.style.display = 'block'; tip.style.left = (px + 12) + 'px'; tip.style.top = (py + 12) + 'px';
      tip.textContent = D.gantt.names[hit[2]] + '\n' + D.gantt.cats[hit[3]] + ', ' + fmt(hit[1]) + ' at ' + fmt(hit[0]) + '\n' + r.label; }
    else tip.style.display = 'none'; });
  cv.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
  document.getElementById('gantt-reset').onclick = () => { t0 = D.gantt.start; t1 = Math.max(D.gantt.end, t0 + 1); draw(); };
  window.addEventListener('resize', size); size();
}
// ---- counters table ---------------------------------------------------------
const table = document.getElementById('counters');
if (table) {
  const body = table.tBodies[0];
  table.querySelectorAll('th').forEach((th, col) => th.addEventListener('click', () => {
    const num = th.dataset.num === '1', asc = th.classList.contains('sorted') && th.dataset.dir === 'down';
    const rs = Array.from(body.rows);
    rs.sort((a, b) => { const u = a.cells[col].dataset.v ?? a.cells[col].textContent,
      v = b.cells[col].dataset.v ?? b.cells[col].textContent;
      const c = num ? (parseFloat(u) - parseFloat(v)) : u.localeCompare(v); return asc ? c : -c; });
    table.querySelectorAll('th').forEach(h => h.classList.remove('sorted'));
    th.classList.add('sorted'); th.dataset.dir = asc ? 'up' : 'down';
    rs.forEach(r => body.appendChild(r)); }));
}
// ---- tree toggle and cross-highlighting ----------------------------------------
document.querySelectorAll('button[data-show]').forEach(b => b.onclick = () => {
  document.querySelectorAll('.tree').forEach(t => t.style.display = t.id === b.dataset.show ? '' : 'none'); });
function highlight(line){
  document.querySelectorAll('.hl').forEach(e => e.classList.remove('hl'));
  if (line == null || line < 1) return;
  document.querySelectorAll('[data-line="' + line + '"]').forEach(e => e.classList.add('hl')); }
document.querySelectorAll('.ln, g.node').forEach(e => {
  e.addEventListener('mouseenter', () => highlight(e.dataset.line));
  e.addEventListener('click', () => { const t = document.querySelector('.ln[data-line="' + e.dataset.line + '"]');
    if (t) t.scrollIntoView({block: 'nearest'}); }); });
})();
"""
