/*
 * app.js - the viewer's page (ccsg serve): the four coordinated trees of
 * the CPU paper's Section 5 (IDT, DSCG, CCSG, CCDG), loaded lazily from the
 * JSON API (ccsg/api.h) a page of children at a time, linked navigation
 * (Figure 4: a menu of the other trees, a linking form grouped by host >
 * process > thread when several nodes correspond), local compaction of the
 * DSCG and CCSG, the CCDG of an impact specification, a flame graph
 * (flame.js), a hyperbolic tree (hyper.js), a thread's PES (pes.js), a
 * chain's timeline (timeline.js), a growing trace followed (follow()).
 * A tree opens
 * where the cost is (openHeavy).  d3 (Debian's node-d3, served by ccsg
 * serve) joins the rows, so nodes that merge or open fade in and out.  The URL's hash holds the tree, the view, the
 * node, the specification and the compaction's steps: a view can be
 * shared or reloaded.  The steps are this page's alone: the server keeps
 * no compaction, each request gives the steps of its state.
 */
'use strict';

const TREES = ['idt', 'dscg', 'ccsg', 'ccdg'];
const NAMES = { idt: 'IDT', dscg: 'DSCG', ccsg: 'CCSG', ccdg: 'CCDG' };
const PAGE = 200;
const OPEN_SHARE = 0.05; // a tree opens every node above this share of its root
const OPEN_REQUESTS = 100; // ... in at most this many requests
const S = {
	info: null,
	tree: 'ccsg',
	view: { dscg: '', ccsg: '' },
	steps: {}, // "tree|view" -> the compaction's steps (api.h)
	spec: '',
	states: new Map(), // "tree|view" -> { root, byId }
	selected: null,
};

/* d3 5 (Debian's) passes the datum and sets d3.event; d3 6 and later
 * pass the event first: both are understood. */
function evArgs(a, b) {
	return a instanceof Event ? { ev: a, d: b } : { ev: d3.event, d: a };
}

function fmtNs(ns) {
	if (ns === undefined || ns === null || ns === -1) return '-';
	const a = Math.abs(ns);
	if (a >= 1e9) return (ns / 1e9).toFixed(2) + ' s';
	if (a >= 1e6) return (ns / 1e6).toFixed(1) + ' ms';
	if (a >= 1e3) return (ns / 1e3).toFixed(1) + ' us';
	return ns + ' ns';
}

function message(text) {
	document.getElementById('message').textContent = text || '';
}

async function api(path, params, method) {
	const q = new URLSearchParams();
	for (const [k, v] of Object.entries(params || {}))
		for (const one of Array.isArray(v) ? v : [v])
			if (one !== undefined && one !== null && one !== '') q.append(k, one);
	const r = await fetch(path + '?' + q.toString(), { method: method || 'GET' });
	const json = (r.headers.get('Content-Type') || '').startsWith('application/json');
	const body = json ? await r.json() : {};
	if (!r.ok) {
		const e = new Error(body.error || r.status + ' ' + r.statusText);
		e.status = r.status;
		throw e;
	}
	return body;
}

function viewOf(tree) {
	return tree === 'dscg' || tree === 'ccsg' ? S.view[tree] : '';
}

function stepsOf(tree) {
	return viewOf(tree) ? S.steps[tree + '|' + viewOf(tree)] || [] : [];
}

function treeParams(tree) {
	const p = { tree };
	if (viewOf(tree)) {
		p.compact = viewOf(tree);
		p.step = stepsOf(tree);
	}
	if (tree === 'ccdg') p.spec = S.spec;
	return p;
}

function rootId(tree) {
	return viewOf(tree) ? 'k:' : S.info.roots[tree];
}

function stateOf(tree) {
	const key = tree + '|' + viewOf(tree) + '|' + stepsOf(tree).join('\n') +
		(tree === 'ccdg' ? '|' + S.spec : '');
	if (!S.states.has(key)) S.states.set(key, { root: null, byId: new Map(), key });
	return S.states.get(key);
}

function adopt(st, data) {
	let n = st.byId.get(data.id);
	if (!n) {
		n = { kids: null, nkids: 0, open: false };
		st.byId.set(data.id, n);
	}
	Object.assign(n, data);
	return n;
}

async function loadRoot(tree) {
	const st = stateOf(tree);
	if (!st.root) {
		const data = await api('/api/node', { ...treeParams(tree), id: rootId(tree) });
		st.root = adopt(st, data);
	}
	return st;
}

/* Load children of n until index `upto` (or one page) is there. */
async function loadKids(tree, n, upto) {
	const st = stateOf(tree);
	if (!n.kids) n.kids = [];
	while (n.kids.length === 0 || (upto !== undefined && upto >= n.kids.length &&
	       n.kids.length < n.nkids)) {
		const r = await api('/api/children', { ...treeParams(tree), id: n.id,
			offset: n.kids.length, limit: PAGE });
		n.nkids = r.total;
		for (const c of r.children) n.kids.push(adopt(st, c));
		if (r.children.length === 0) break;
	}
}

/* The visible rows, depth first. */
function flatten(st) {
	const rows = [];
	const walk = (n, depth) => {
		rows.push({ key: 'n:' + n.id, node: n, depth });
		if (!n.open || !n.kids) return;
		for (const c of n.kids) walk(c, depth + 1);
		if (n.kids.length < n.nkids)
			rows.push({ key: 'm:' + n.id, more: n, depth: depth + 1 });
	};
	if (st.root) walk(st.root, 0);
	return rows;
}

function heat(frac) {
	const f = Math.max(0, Math.min(1, frac));
	return typeof d3 !== 'undefined' ? d3.interpolateYlOrRd(0.12 + 0.88 * f)
		: 'rgb(' + Math.round(255) + ',' + Math.round(220 - 200 * f) + ',60)';
}

/* What a node weighs: every tree's nodes carry their measure in total
 * (CPU today: self plus descendants; the IDT's, its calls' self CPU). */
function figure(n) {
	return n.total || 0;
}

/* The root's figure (at least 1): the largest of the root's and of its
 * children's, a root without a total of its own counting as its heaviest. */
function rootFigure(st) {
	return Math.max(1, figure(st.root), ...(st.root.kids || []).map(figure));
}

function hostTotals(n) {
	if (!n.self_v) return null;
	return n.self_v.map((s, i) => s + (n.desc_v ? n.desc_v[i] : 0));
}

function fillRow(div, row, st) {
	const sel = d3.select(div);
	sel.selectAll('*').remove();
	sel.style('padding-left', (6 + 16 * row.depth) + 'px').style('background', null);
	if (row.more) {
		sel.attr('class', 'row more').text('more... (' + row.more.kids.length +
			' of ' + row.more.nkids + ')');
		return;
	}
	const n = row.node;
	const rootTotal = rootFigure(st);
	const cls = ['row'];
	if (S.selected && S.selected.tree === S.tree && S.selected.id === n.id) cls.push('selected');
	if (S.tree === 'ccdg' && n.affected !== undefined) cls.push(n.affected ? 'affected' : 'unaffected');
	sel.attr('class', cls.join(' ')).attr('data-id', n.id).attr('data-name', n.name);
	sel.append('span').attr('class', 'toggle').text(n.has_children ? (n.open ? '\u25be' : '\u25b8') : '');
	sel.append('span').attr('class', 'name').attr('title', n.name).text(n.name);
	const total = n.total || 0;
	sel.append('span').attr('class', 'cpu')
		.style('width', Math.max(1, Math.round(140 * total / rootTotal)) + 'px')
		.style('background', heat((n.self || 0) / rootTotal * 4));
	sel.append('span').attr('class', 'num').text(fmtNs(total) +
		(n.calls !== undefined ? '  x' + n.calls : ''));
	if (n.host !== undefined && n.host !== '')
		sel.append('span').attr('class', 'num').text('@' + n.host);
	const ht = hostTotals(n);
	if (ht && ht.length > 1) {
		const max = Math.max(1, ...ht);
		const hb = sel.append('span').attr('class', 'hosts').attr('title',
			S.info.dims.map((h, i) => h + ' ' + fmtNs(ht[i])).join(', '));
		ht.forEach((v) => hb.append('span').style('height', Math.max(1, Math.round(14 * v / max)) + 'px')
			.style('background', heat(v / rootTotal * 2)));
	}
	if (S.tree === 'ccdg' && n.delta !== undefined && n.delta !== 0)
		sel.append('span').attr('class', 'delta').text('\u0394 ' + fmtNs(n.delta));
	if (S.tree === 'ccsg' && n.diff) diffRow(sel, n.diff);
	if (viewOf(S.tree)) {
		const ops = sel.append('span').attr('class', 'ops');
		ops.append('button').attr('class', 'op-compact').attr('title', 'compact: one element less')
			.text('\u2212').on('click', (a) => { evArgs(a).ev.stopPropagation(); compactOp('compact', n.id); });
		ops.append('button').attr('class', 'op-expand').attr('title', 'expand: one element more')
			.text('+').on('click', (a) => { evArgs(a).ev.stopPropagation(); compactOp('expand', n.id); });
	}
}

/* --diff: a CCSG row's change from this trace to B, tinted when it stands
 * out of the noise (red: more self CPU, green: less; the stronger, the
 * larger the change), its delta beside its figures */
function diffRow(sel, d) {
	const pct = d.change_pct === null ? (d.in_b ? '' : ', not in B') :
		' ' + (d.change_pct > 0 ? '+' : '') + d.change_pct.toFixed(1) + '%';
	const dir = d.self_cpu_delta_ns > 0 ? 'more' : d.self_cpu_delta_ns < 0 ? 'less' : '';
	sel.append('span').attr('class', 'ddelta' + (d.significant ? '' : ' noise'))
		.attr('title', 'self CPU in B ' + fmtNs(d.self_cpu_b_ns) + ', p ' + d.p)
		.text('\u0394 ' + (d.self_cpu_delta_ns > 0 ? '+' : '') + fmtNs(d.self_cpu_delta_ns) + pct);
	if (!d.significant || !dir) return;
	const a = 0.15 + 0.35 * Math.min(1, Math.abs(d.change_pct === null ? 100 : d.change_pct) / 100);
	sel.classed('diff-' + dir, true)
		.style('background', dir === 'more' ? `rgba(229,57,53,${a})` : `rgba(67,160,71,${a})`);
}

function render() {
	const st = stateOf(S.tree);
	const rows = flatten(st);
	const t = d3.transition().duration(250);
	d3.select('#tree').selectAll('div.row').data(rows, (r) => r.key).join(
		(enter) => enter.append('div').style('opacity', 0)
			.each(function (r) { fillRow(this, r, st); })
			.call((e) => e.transition(t).style('opacity', 1)),
		(update) => update.each(function (r) { fillRow(this, r, st); }),
		(exit) => exit.transition(t).style('opacity', 0).remove())
		.order()
		.on('click', (a, b) => onRow(evArgs(a, b).d));
}

async function onRow(r) {
	try {
		if (r.more) {
			await loadKids(S.tree, r.more, r.more.kids.length);
		} else {
			const n = r.node;
			if (n.has_children) {
				n.open = !n.open;
				if (n.open) await loadKids(S.tree, n);
			}
			await select(S.tree, n.id);
		}
		render();
	} catch (e) { message(e.message); }
}

function setHash() {
	const p = new URLSearchParams();
	p.set('tree', S.tree);
	if (viewOf(S.tree)) p.set('view', viewOf(S.tree));
	for (const step of stepsOf(S.tree)) p.append('step', step);
	if (S.selected && S.selected.tree === S.tree) p.set('node', S.selected.id);
	if (S.spec) p.set('spec', S.spec);
	history.replaceState(null, '', '#' + p.toString());
}

function detailRows(tbl, obj) {
	for (const [k, v] of Object.entries(obj)) {
		if (typeof v === 'object' && v !== null) continue;
		const tr = tbl.append('tr');
		tr.append('td').text(k);
		const ns = ['self', 'desc', 'total', 'latency', 'before', 'after', 'delta',
			'self_cpu_a_ns', 'self_cpu_b_ns', 'self_cpu_delta_ns', 'total_cpu_delta_ns',
			'latency_median_a_ns', 'latency_median_b_ns',
			'latency_mean', 'latency_sd', 'cpu_mean', 'cpu_sd', 'thread_cpu'];
		tr.append('td').attr('class', 'v-' + k).text(ns.includes(k) ? fmtNs(v) + ' (' + v + ')' : String(v));
	}
}

async function select(tree, id) {
	S.selected = { tree, id };
	setHash();
	Hyper.selected(tree, id);
	const n = await api('/api/node', { ...treeParams(tree), id });
	Pes.selected(tree, n);
	const info = d3.select('#info');
	info.text('');
	info.append('h2').text(n.name);
	const tbl = info.append('table').attr('class', 'fields');
	detailRows(tbl, n);
	for (const side of ['client', 'server'])
		if (n[side]) {
			info.append('div').text(side);
			detailRows(info.append('table'), n[side]);
		}
	for (const k of ['args', 'result']) /* a call's values (ccsg calls) */
		if (typeof n[k] === 'object' && n[k] !== null)
			info.append('div').text(k).append('pre').attr('class', 'v-' + k)
				.text(JSON.stringify(n[k]));
	if (n.self_v) {
		info.append('div').text('per host (self + descendants)');
		const hb = info.append('table').attr('class', 'hostbars');
		const ht = hostTotals(n), max = Math.max(1, ...ht);
		S.info.dims.forEach((h, i) => {
			const tr = hb.append('tr');
			tr.append('td').text(h);
			tr.append('td').text(fmtNs(n.self_v[i]) + ' + ' + fmtNs(n.desc_v[i]));
			tr.append('td').attr('class', 'bar').append('div')
				.style('width', Math.round(120 * ht[i] / max) + 'px');
		});
	}
	if (n.callers && n.callers.length) {
		/* the CCSG is a graph: the primary tree shows one caller, the
		 * others are secondary (cross) links */
		info.append('div').text('called from');
		for (const c of n.callers)
			info.append('div').attr('class', 'lf-node caller').attr('data-id', c.id)
				.text((c.primary ? '' : '\u2197 ') + c.name + '  x' + c.count +
					(c.primary ? ' (primary tree)' : ' (cross link)'))
				.on('click', () => focus(tree, c.id));
	}
	if (tree === 'ccsg' || tree === 'ccdg') {
		const r = await api('/api/children', { ...treeParams(tree), id, limit: 1, secondary: 1 });
		if (r.secondary && r.secondary.length) {
			info.append('div').text('also calls (cross links, under another caller in the tree)');
			for (const c of r.secondary)
				info.append('div').attr('class', 'lf-node secondary').attr('data-id', c.id)
					.text('\u2197 ' + c.name + '  x' + c.count)
					.on('click', () => focus(tree, c.id));
		}
	}
	if (tree === 'ccsg' && n.diff) {
		info.append('div').attr('class', 'diff-head').text('compared with ' + S.info.diff.b);
		detailRows(info.append('table').attr('class', 'diff-fields'), n.diff);
		for (const h of n.diff.hosts) {
			info.append('div').text('on ' + h.host);
			detailRows(info.append('table').attr('class', 'diff-host'), h);
		}
	}
	if (n.hosts) {
		info.append('div').text('per host');
		const hb = info.append('table').attr('class', 'idt-hosts');
		for (const h of n.hosts) detailRows(hb, h);
	}
	const go = d3.select('#goto');
	go.selectAll('*').remove();
	d3.select('#linkform').selectAll('*').remove();
	if (viewOf(tree)) {
		go.append('div').text('compacted view: open the tree view to link to the others');
	} else {
		go.append('span').text('open in: ');
		for (const to of TREES)
			if (to !== tree)
				go.append('button').attr('class', 'goto goto-' + to)
					.text('\u2192 ' + NAMES[to]).on('click', () => linkTo(tree, id, to));
	}
}

/* Figure 4: the candidates in the destination tree; one is focused at
 * once, several are offered grouped by host > process > thread. */
async function linkTo(from, id, to) {
	try {
		message('');
		const p = { from, id, to };
		if (from === 'ccdg' || to === 'ccdg') p.spec = S.spec;
		const r = await api('/api/link', p);
		const all = [];
		for (const g of r.groups) for (const pr of g.processes)
			for (const th of pr.threads) for (const n of th.nodes) all.push(n);
		const form = d3.select('#linkform');
		form.selectAll('*').remove();
		if (all.length === 0) {
			message('no corresponding node in the ' + NAMES[to]);
			return;
		}
		if (all.length === 1) {
			await focus(to, all[0].id);
			return;
		}
		form.append('h2').text(r.count + ' nodes in the ' + NAMES[to] +
			(r.shown < r.count ? ' (first ' + r.shown + ')' : ''));
		for (const g of r.groups) {
			const hd = form.append('div').attr('class', 'lf-group');
			if (g.host !== '') hd.append('div').attr('class', 'lf-host').text('host ' + g.host);
			for (const pr of g.processes) {
				if (pr.process !== '') hd.append('div').attr('class', 'lf-process').text('process ' + pr.process);
				for (const th of pr.threads) {
					if (th.tid) hd.append('div').attr('class', 'lf-thread').text('thread ' + th.tid);
					for (const n of th.nodes)
						hd.append('div').attr('class', 'lf-node').attr('data-id', n.id)
							.text(n.name + '  ' + fmtNs(n.total))
							.on('click', () => focus(to, n.id));
				}
			}
		}
	} catch (e) { message(e.message); }
}

/* Bring node id of tree into focus: its ancestors opened, the page of
 * children that holds it loaded, selected and scrolled to. */
async function focus(tree, id, keepView) {
	try {
		if (!keepView && (tree === 'dscg' || tree === 'ccsg')) S.view[tree] = '';
		await showTree(tree);
		const path = await api('/api/path', { ...treeParams(tree), id });
		const st = stateOf(tree);
		let n = st.root;
		for (let i = 1; i < path.path.length; i++) {
			n.open = true;
			await loadKids(tree, n, path.path[i].index);
			n = st.byId.get(path.path[i].node.id);
			if (!n) throw new Error('node ' + path.path[i].node.id + ' not loaded');
		}
		await select(tree, id);
		render();
		const row = document.querySelector('#tree div.row[data-id="' + CSS.escape(id) + '"]');
		if (row) row.scrollIntoView({ block: 'center' });
	} catch (e) { message(e.message); }
}

/* Open where the cost is: the root, then every node that holds at least
 * OPEN_SHARE of the root's figure, heaviest first, so the heaviest path
 * is open down to its first node under the share and every node above
 * it is shown.  A node's unseen children (beyond the pages loaded) are
 * loaded while they could hold such a node.  At most OPEN_REQUESTS
 * requests: a deep chain of heavy nodes opens as far as they go. */
async function openHeavy(tree, st) {
	const root = st.root;
	if (!root.has_children) return;
	root.open = true;
	await loadKids(tree, root);
	const thr = OPEN_SHARE * rootFigure(st);
	let budget = OPEN_REQUESTS - 1;
	const queue = [root];
	while (queue.length && budget > 0) {
		queue.sort((a, b) => figure(b) - figure(a));
		const n = queue.shift();
		n.open = true;
		if (n.kids === null || n.kids.length === 0) {
			await loadKids(tree, n);
			budget--;
		}
		while (budget > 0 && n.kids.length < n.nkids && unseen(tree, n) >= thr) {
			await loadKids(tree, n, n.kids.length);
			budget--;
		}
		queue.push(...n.kids.filter((c) => c.has_children && figure(c) >= thr));
	}
}

/* What one of n's children not loaded yet may hold at most: the CCSG's,
 * the CCDG's and a compacted tree's children come largest first; the
 * IDT's and the DSCG's in their own order, their totals nest. */
function unseen(tree, n) {
	if (n.kids.length === 0) return 0;
	if (tree === 'ccsg' || tree === 'ccdg' || viewOf(tree))
		return figure(n.kids[n.kids.length - 1]);
	return figure(n) - (n.self || 0) - n.kids.reduce((s, c) => s + figure(c), 0);
}

async function showTree(tree) {
	S.tree = tree;
	d3.selectAll('#tabs button').classed('active', function () { return this.dataset.tree === tree; });
	d3.select('#viewbar').style('display', tree === 'dscg' || tree === 'ccsg' ? null : 'none');
	d3.select('#levelbar').style('display', viewOf(tree) ? null : 'none');
	d3.select('#specbar').style('display', tree === 'ccdg' ? null : 'none');
	d3.select('#difflegend').style('display', tree === 'ccsg' && S.info.diff ? null : 'none');
	document.getElementById('view').value = viewOf(tree);
	d3.select('#tree').selectAll('*').remove();
	setHash();
	if (tree === 'ccdg' && !S.spec) {
		message('type an impact specification and press estimate');
		return;
	}
	message('');
	const st = await loadRoot(tree);
	if (!st.shaped) {
		await openHeavy(tree, st);
		st.shaped = true;
	}
	render();
	Flame.refresh(tree);
	Hyper.refresh(tree);
}

/* Compact or expand a node of a compacted tree: the server answers the
 * steps of the new state, which this page keeps.  Then reload what was
 * open: merged rows fade out, the new ones in. */
async function compactOp(op, id, level) {
	const tree = S.tree;
	try {
		message('');
		const old = stateOf(tree);
		const r = await api('/api/compact', { tree, hierarchy: viewOf(tree), op, id, level,
			step: stepsOf(tree) }, 'POST');
		S.steps[tree + '|' + viewOf(tree)] = r.steps;
		setHash();
		const open = new Set([...old.byId.values()].filter((n) => n.open).map((n) => n.id));
		S.states.delete(old.key);
		const st = await loadRoot(tree);
		await openHeavy(tree, st);
		st.shaped = true;
		const queue = [st.root];
		while (queue.length) {
			const n = queue.shift();
			for (const c of n.kids || []) {
				if (!c.has_children || !(c.open || open.has(c.id))) continue;
				c.open = true;
				await loadKids(tree, c);
				queue.push(c);
			}
		}
		render();
		if (r.node && r.node.id !== 'k:') await focus(tree, r.node.id, true);
	} catch (e) { message(e.message); }
}

async function search(q) {
	const res = d3.select('#results');
	res.selectAll('*').remove();
	if (!q) return;
	try {
		const r = await api('/api/search', { ...treeParams(S.tree), q, limit: 50 });
		res.append('h2').text(r.total + ' matches in the ' + NAMES[S.tree]);
		const tree = S.tree;
		for (const n of r.results)
			res.append('div').attr('class', 'lf-node').attr('data-id', n.id)
				.text(n.name + '  ' + fmtNs(n.total) + (n.host ? ' @' + n.host : ''))
				.on('click', () => focus(tree, n.id, true));
	} catch (e) { message(e.message); }
}

/* What selective monitoring covered: a line, and on a click each host
 * and process with its intervals (types on, selections in force), as
 * `ccsg report --switches` lists them. */
function showMonitoring(m, text) {
	const types = (t) => (t.length ? t.join(', ') : 'none');
	let line = 'monitoring: not recorded (every type on all along)';
	if (m && m.recorded) {
		line = 'monitoring: ' + m.switches + (m.switches === 1 ? ' switch' : ' switches');
		if (m.selections)
			line += ' (' + m.selections + (m.selections === 1 ? ' selection)' : ' selections)');
		line += '; on throughout: ' + types(m.throughout);
		const sometime = m.sometime.filter((t) => !m.throughout.includes(t));
		if (sometime.length) line += '; on at times: ' + types(sometime);
	}
	d3.select('#monitoring summary').text(line);
	d3.select('#monitoring pre').text(text || '');
}

/* The trace's line, its monitoring and, with --follow, its window. */
function showInfo(info) {
	d3.select('#trace').text(info.db + ' - ' + info.hosts.length + ' hosts, ' +
		info.calls + ' calls, ' + info.threads + ' threads');
	showMonitoring(info.monitoring, info.monitoring_text);
	const f = info.follow;
	const line = d3.select('#follow').attr('hidden', f ? null : true);
	if (!f) return;
	const at = new Date(f.refreshed_at).toLocaleTimeString('en-GB', { hour12: false });
	line.classed('error', !!f.error)
		.attr('data-generation', f.generation)
		.text('following: last ' + f.last_minutes + ' min, updated ' + at +
			(f.error ? ' - ' + f.error : ''));
}

/* The names from the root down to node id of the state st (loaded), or
 * null. */
function namesTo(st, id) {
	const walk = (n) => {
		if (n.id === id) return [n.name];
		for (const c of n.kids || []) {
			const p = walk(c);
			if (p) return [n.name, ...p];
		}
		return null;
	};
	return st && st.root ? walk(st.root) : null;
}

/* The node of tree (built again) the names lead to from its root: its
 * id when it has the same one (the path's names agree), else found name
 * by name; null when it is gone.  Ids depend on the build: a CCSG node's
 * or a chain's number may name another node in the next. */
async function findAgain(tree, id, names) {
	try {
		const p = await api('/api/path', { ...treeParams(tree), id });
		if (p.path.map((e) => e.node.name).join('\n') === names.join('\n')) return id;
	} catch (e) {
		if (e.status !== 404) throw e;
	}
	const st = await loadRoot(tree);
	let n = st.root;
	for (const name of names.slice(1)) {
		let c;
		await loadKids(tree, n);
		while (!(c = n.kids.find((k) => k.name === name)) && n.kids.length < n.nkids)
			await loadKids(tree, n, n.kids.length);
		if (!c) return null;
		n = c;
	}
	return n.id;
}

/* --follow: /api/info asked every refresh period.  A new generation (the
 * server built the window again) drops every tree loaded and shows the
 * current one again, from the root as it opens, the node selected before
 * selected again when it is still there (findAgain()).  The hosts and
 * dimensions the graphs were given stay the same arrays, filled again. */
async function followTick() {
	const info = await api('/api/info');
	const was = S.info;
	if (info.follow.generation === was.follow.generation) {
		showInfo(info);
		return;
	}
	was.hosts.splice(0, was.hosts.length, ...info.hosts);
	was.dims.splice(0, was.dims.length, ...info.dims);
	S.info = { ...info, hosts: was.hosts, dims: was.dims };
	showInfo(S.info);
	const sel = S.selected;
	const names = sel && sel.tree === S.tree ? namesTo(stateOf(S.tree), sel.id) : null;
	S.states.clear();
	const id = names ? await findAgain(S.tree, sel.id, names) : null;
	if (id) {
		await focus(S.tree, id, true);
		return;
	}
	S.selected = null;
	d3.select('#info').text('select a node');
	d3.selectAll('#goto, #linkform, #results').text('');
	await showTree(S.tree);
}

function follow() {
	if (!S.info.follow) return;
	const tick = () => followTick().catch((e) => message(e.message))
		.finally(() => setTimeout(tick, S.info.follow.refresh_seconds * 1000));
	setTimeout(tick, S.info.follow.refresh_seconds * 1000);
}

async function start() {
	if (typeof d3 === 'undefined') {
		document.body.textContent = 'd3 is missing: install node-d3 (apt-get install node-d3)';
		return;
	}
	S.info = await api('/api/info');
	showInfo(S.info);
	if (S.info.diff)
		d3.select('#difflegend').text('compared with ' + S.info.diff.b +
			': red more self CPU, green less (stands out of the noise: ' +
			'Mann-Whitney U, p < ' + S.info.diff.alpha + '); untinted: within it');
	const h = new URLSearchParams(location.hash.slice(1));
	S.spec = h.get('spec') || S.info.change || '';
	document.getElementById('spec').value = S.spec;
	const tree = TREES.includes(h.get('tree')) ? h.get('tree') : 'ccsg';
	if ((tree === 'dscg' || tree === 'ccsg') && ['name', 'location'].includes(h.get('view'))) {
		S.view[tree] = h.get('view');
		S.steps[tree + '|' + S.view[tree]] = h.getAll('step');
	}
	Flame.attach({ api, params: treeParams, rootId, current: () => S.tree, fmtNs,
		focus: (tree, id) => focus(tree, id, true), hosts: S.info.hosts, dims: S.info.dims });
	Pes.attach({ api });
	Hyper.attach({ api, params: treeParams, rootId, current: () => S.tree, fmtNs,
		focus: (tree, id) => focus(tree, id, true), hosts: S.info.hosts, dims: S.info.dims });
	/* a timeline's slice selects its node: its function in the CCSG or
	 * CCDG shown, else its call (or thread) in the DSCG */
	Timeline.attach({ api, fmtNs, hosts: S.info.hosts,
		select: (s) => (S.tree === 'ccsg' || S.tree === 'ccdg') && s.node && !viewOf(S.tree)
			? focus(S.tree, s.node, true) : focus('dscg', s.id) });
	d3.selectAll('#tabs button').on('click', function () { showTree(this.dataset.tree).catch((e) => message(e.message)); });
	d3.select('#view').on('change', function () {
		S.view[S.tree] = this.value;
		showTree(S.tree).catch((e) => message(e.message));
	});
	d3.select('#setlevel').on('click', () => compactOp('level', undefined,
		document.getElementById('level').value));
	d3.select('#reset').on('click', () => compactOp('reset'));
	d3.select('#estimate').on('click', () => {
		S.spec = document.getElementById('spec').value.trim();
		showTree('ccdg').catch((e) => message(e.message));
	});
	d3.select('#search').on('keydown', (a) => {
		const ev = evArgs(a).ev;
		if (ev.key === 'Enter') search(ev.target.value.trim());
	});
	follow();
	if (h.get('node') && !viewOf(tree)) await focus(tree, h.get('node'));
	else await showTree(tree);
}

start().catch((e) => message(e.message));
