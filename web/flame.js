/*
 * flame.js - the viewer's flame graph (an icicle: the root on top) of the
 * DSCG and of the CCSG, whole or compacted (issue 39, item 2).  The tree
 * comes in one request, /api/flame (ccsg/serve/api-flame.c), pruned by
 * the server below one pixel of the view: a node narrower than that is
 * not sent, a node's children under it come as one grey "hidden"
 * rectangle.  d3's partition layout (Debian's node-d3) places them: a
 * rectangle is as wide as the node's total (CPU, self plus descendants)
 * is a share of the view's root, coloured by the host it ran on (a CCSG
 * function: the host of most of its self CPU), with a legend.  Clicking a
 * rectangle selects its node in the trees (app.js's focus, so the
 * details and the links to the other trees follow) and zooms to it: the
 * node is asked for again, at the view's full width, so what was under a
 * pixel shows.  Clicking the top rectangle, or an ancestor in the path
 * above, zooms out.  The search box highlights the rectangles whose name
 * holds what is typed.  app.js calls Flame.attach() once and
 * Flame.refresh() when it shows a tree.
 */
'use strict';

const Flame = (() => {
	const ROW = 18; // px a level
	const F = {
		hooks: null,
		open: false,
		key: '', // the tree and view drawn
		tree: null,
		path: [], // [{id, name}] from the tree's root to the view's root
		root: null, // the d3 hierarchy drawn
		query: '',
		colour: null,
		seq: 0, // the answer drawn is the last asked for
	};

	/* d3 5 passes the datum and sets d3.event; d3 6 passes the event. */
	function evOf(a) {
		return a instanceof Event ? a : d3.event;
	}

	function drawable(tree) {
		return tree === 'dscg' || tree === 'ccsg';
	}

	/* The host a node is coloured by: its own (a DSCG thread or call),
	 * else the host of most of its self CPU (a CCSG function: self_v
	 * by host), else its parent's (a DSCG chain), else none (grey: the
	 * root, whose CPU is all its descendants'). */
	function hostOf(d) {
		const n = d.data.node;
		if (!n) return null;
		if (n.host) return n.host;
		if (n.self_v && F.hooks.dims) {
			const pick = (v) => {
				let best = -1;
				v.forEach((x, i) => { if (x > 0 && (best < 0 || x > v[best])) best = i; });
				return best;
			};
			const i = pick(n.self_v);
			if (i >= 0) return F.hooks.dims[i];
		}
		return d.parent ? hostOf(d.parent) : null;
	}

	function colourOf(d) {
		if (!d.data.node) return '#b0bec5';
		const h = hostOf(d);
		return h ? F.colour(h) : '#90a4ae';
	}

	/* The answer's flat list (breadth first, parents first) as a tree. */
	function nest(answer) {
		const items = answer.nodes.map((e) => ({
			node: e.node || null,
			hidden: e.hidden || 0,
			total: e.node ? e.node.total || 0 : e.total || 0,
			children: [],
		}));
		answer.nodes.forEach((e, i) => {
			if (e.parent >= 0) items[e.parent].children.push(items[i]);
		});
		return items[0];
	}

	/* Each node's value is its total; children that add up to more than
	 * their parent (a CCSG node's callees in the primary tree may weigh
	 * more than it, their totals counting other callers) are scaled
	 * down together to fit in it. */
	function weigh(root) {
		root.eachBefore((d) => {
			const f = d.parent ? d.parent.fit : 1;
			d.value = Math.max(0, d.data.total) * f;
			const kids = (d.children || []).reduce((s, c) => s + Math.max(0, c.data.total), 0);
			d.fit = kids > d.data.total && kids > 0 ? f * d.data.total / kids : f;
		});
	}

	function width() {
		const el = document.getElementById('flame-svg');
		return Math.max(100, Math.floor(el.parentNode.clientWidth) - 4);
	}

	function fmtPct(x) {
		return (100 * x).toFixed(x < 0.001 ? 3 : 1) + '%';
	}

	function tip(ev, d) {
		const n = d.data.node, fmt = F.hooks.fmtNs, top = F.root.data.total || 1;
		const t = d3.select('#flame-tip').style('display', null);
		t.selectAll('*').remove();
		t.append('b').text(n ? n.name : d.data.hidden + ' nodes under a pixel');
		const line = (k, v) => t.append('div').text(k + ': ' + v);
		line('total', fmt(d.data.total) + ' (' + fmtPct(d.data.total / top) + ' of the view)');
		if (n) {
			if (n.self !== undefined) line('self', fmt(n.self));
			if (n.calls !== undefined) line('calls', n.calls);
			if (n.latency !== undefined) line('latency', fmt(n.latency));
			const h = hostOf(d);
			if (h) line('host', h + (n.process ? ' ' + n.process : ''));
		}
		t.style('left', Math.min(ev.clientX + 12, window.innerWidth - 260) + 'px')
			.style('top', Math.min(ev.clientY + 14, window.innerHeight - 120) + 'px');
	}

	function highlight() {
		const q = F.query.toLowerCase();
		let hits = 0;
		d3.select('#flame-svg').selectAll('g.fnode')
			.classed('match', (d) => {
				const m = q !== '' && !!d.data.node &&
					(d.data.node.name || '').toLowerCase().includes(q);
				hits += m;
				return m;
			})
			.classed('unmatched', function () { return q !== '' && !this.classList.contains('match'); });
		d3.select('#flame-found').text(q ? hits + ' match' + (hits === 1 ? '' : 'es') : '');
	}

	function legend(root) {
		const hosts = new Set();
		root.each((d) => { const h = hostOf(d); if (h) hosts.add(h); });
		const lg = d3.select('#flame-legend');
		lg.selectAll('*').remove();
		for (const h of [...hosts].sort()) {
			const s = lg.append('span').attr('class', 'flame-host').attr('data-host', h);
			s.append('i').style('background', F.colour(h));
			s.append('span').text(h);
		}
	}

	function crumbs() {
		const c = d3.select('#flame-path');
		c.selectAll('*').remove();
		F.path.forEach((p, i) => {
			if (i) c.append('span').text(' \u203a ');
			const a = c.append('span').attr('class', 'crumb').attr('data-id', p.id).text(p.name);
			if (i < F.path.length - 1) a.on('click', () => zoom(F.path.slice(0, i + 1)));
		});
	}

	function draw(answer) {
		const W = width();
		const root = d3.hierarchy(nest(answer), (d) => d.children);
		weigh(root);
		d3.partition().size([W, (root.height + 1) * ROW])(root);
		F.root = root;
		const svg = d3.select('#flame-svg').attr('width', W)
			.attr('height', (root.height + 1) * ROW).attr('data-width', W);
		svg.selectAll('*').remove();
		d3.select('#flame-tip').style('display', 'none');
		const g = svg.selectAll('g.fnode').data(root.descendants()).join('g')
			.attr('class', (d) => 'fnode' + (d.data.node ? '' : ' hidden'))
			.attr('data-id', (d) => d.data.node ? d.data.node.id : null)
			.attr('data-name', (d) => d.data.node ? d.data.node.name : null)
			.attr('transform', (d) => 'translate(' + d.x0 + ',' + d.depth * ROW + ')');
		g.append('rect').attr('width', (d) => d.x1 - d.x0).attr('height', ROW - 1)
			.attr('fill', colourOf);
		g.filter((d) => d.x1 - d.x0 > 28).append('text').attr('x', 3).attr('y', ROW - 5)
			.text((d) => {
				const s = d.data.node ? d.data.node.name : '';
				const fit = Math.floor((d.x1 - d.x0 - 6) / 6.5);
				return s.length <= fit ? s : s.slice(0, Math.max(0, fit - 1)) + '\u2026';
			});
		g.on('mousemove', (a, b) => { const ev = evOf(a); tip(ev, a instanceof Event ? b : a); })
			.on('mouseleave', () => d3.select('#flame-tip').style('display', 'none'))
			.on('click', (a, b) => clicked(a instanceof Event ? b : a));
		d3.select('#flame-note').text(answer.hidden ? answer.hidden + ' nodes under a pixel, in grey' +
			(answer.truncated ? '; cut at the answer\'s limit' : '') : '');
		legend(root);
		crumbs();
		highlight();
	}

	/* A rectangle clicked: its node selected in the trees and the view
	 * zoomed to it; the view's root zooms out one step. */
	function clicked(d) {
		const n = d.data.node;
		if (!n) return;
		if (!d.parent) {
			if (F.path.length > 1) zoom(F.path.slice(0, -1));
			F.hooks.focus(F.tree, n.id);
			return;
		}
		const down = d.ancestors().reverse().slice(1)
			.map((a) => ({ id: a.data.node.id, name: a.data.node.name }));
		zoom(F.path.concat(down));
		F.hooks.focus(F.tree, n.id);
	}

	async function zoom(path) {
		F.path = path;
		const seq = ++F.seq, tree = F.tree;
		try {
			const r = await F.hooks.api('/api/flame', { ...F.hooks.params(tree),
				id: path[path.length - 1].id, width: width() });
			if (seq === F.seq && tree === F.tree && F.open) draw(r);
		} catch (e) { d3.select('#flame-note').text(e.message); }
	}

	function toggle() {
		F.open = !F.open;
		F.key = '';
		refresh(F.hooks.current());
	}

	/* The tree shown now is tree: the flame graph of its root, when open
	 * and a DSCG or CCSG.  The same tree in the same view (a node focused
	 * in it) keeps its zoom. */
	function refresh(tree) {
		const show = F.open && drawable(tree);
		d3.select('#flame').attr('hidden', show ? null : '');
		d3.select('#flame-toggle').classed('active', F.open);
		if (!show) return;
		const key = tree + '?' + JSON.stringify(F.hooks.params(tree));
		if (key === F.key && F.root) return;
		F.key = key;
		F.tree = tree;
		zoom([{ id: F.hooks.rootId(tree), name: 'all' }]);
	}

	/* hooks: api(path, params), params(tree) (the tree's request
	 * parameters: compact=, step=), rootId(tree), focus(tree, id),
	 * current() (the tree shown), fmtNs(ns), hosts and dims (/api/info). */
	function attach(hooks) {
		F.hooks = hooks;
		const scheme = d3.schemeTableau10 || d3.schemeCategory10;
		F.colour = d3.scaleOrdinal(scheme).domain(hooks.hosts || []);
		d3.select('#viewbar').append('button').attr('id', 'flame-toggle')
			.attr('title', 'a flame graph of this tree above its rows').text('flame graph')
			.on('click', toggle);
		d3.select('#search').on('input.flame', function () {
			F.query = this.value.trim();
			if (F.root) highlight();
		});
		let timer = null;
		window.addEventListener('resize', () => {
			clearTimeout(timer);
			timer = setTimeout(() => { if (F.open && F.root) zoom(F.path); }, 200);
		});
	}

	return { attach, refresh };
})();
