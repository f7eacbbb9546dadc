/*
 * hyper.js - the viewer's hyperbolic browser (issue 39, item 4): the
 * DSCG or the CCSG, whole or compacted, as the CPU paper's Section 5
 * shows its trees (its reference [6]: Lamping and Rao's hyperbolic tree,
 * "The Hyperbolic Browser", 1995), in the Poincare disk, drawn with d3 and
 * SVG.  The tree comes from /api/flame (as flame.js has it), pruned by the
 * server under 1/WIDTH of the root; a node's children under that are one
 * grey node, a click on which asks for that node's subtree again.
 *
 * Layout (Lamping and Rao): every node has a wedge, an arc of the disk's
 * rim as seen from the node in its own frame (the root: the whole rim).
 * Its children share the wedge (half equally, half by their leaves) and
 * sit at one hyperbolic distance from it, long enough that neighbours are
 * SPACING apart on the circle they sit on; a child's wedge, in its own
 * frame, is its share's ends moved by the translation that brings the
 * child to the centre (Mobius transformations keep the rim and its
 * order), cut to HALF of either side of the way away from its parent.
 * Sibling subtrees thus never overlap.  Each node keeps only that
 * translation (its place in its parent's frame); the screen is the frame
 * of the focus node moved by a transformation G, and every node's frame
 * is composed from the focus outwards, one edge at a time, so a node deep
 * in the tree is as exact as one near the root.
 *
 * A click brings a node to the centre: G is composed with the
 * translations that move its point along the geodesic to the centre,
 * animated over 500 ms with requestAnimationFrame.  A node is a circle of
 * a hyperbolic radius growing with its CPU (total), coloured by host as
 * in the flame graph; only the circles at least MIN_PX pixels wide are
 * drawn (at most MAX_DRAWN, the largest), from a pool of elements that is
 * reused frame to frame, the edges (geodesic arcs) one path.  The click
 * selects the node in the trees (app.js's focus).  app.js calls
 * Hyper.attach() once and Hyper.refresh() when it shows a tree.
 */
'use strict';

const Hyper = (() => {
	const WIDTH = 20000; // the tree's nodes down to 1/WIDTH of the root
	const MAX_NODES = 60000; // nodes kept at most, grafts included
	const D_MIN = 1.2; // hyperbolic distance parent to child, at least
	const D_MAX = 12;
	const SPACING = 0.9; // between sibling centres, hyperbolic
	const HALF = (2 * Math.PI) / 3; // a wedge's reach from the way out
	const RHO_MIN = 0.06, RHO_MAX = 0.3; // a node's hyperbolic radius
	const MIN_PX = 1; // a circle narrower is not drawn
	const MAX_DRAWN = 2500;
	const LABEL_PX = 7, MAX_LABELS = 80;
	const RIM = 1e-12; // 1 - |z|^2 under which a node's subtree is left out
	const DURATION = 500; // ms of a transition

	const H = {
		hooks: null,
		open: false,
		key: '',
		tree: null,
		linked: true, // clicks select in the trees
		seq: 0,
		n: 0, // nodes
		data: [], // per node: {node, hidden, total, parent (index)}
		kids: [],
		parent: null, // Int32Array
		ax: null, ay: null, // place in its parent's frame
		rho: null, // hyperbolic radius
		// each node's frame on screen, [[a, b], [conj b, conj a]]
		fr: null, fi: null, gr: null, gi: null,
		px: null, py: null, // its point in the disk
		seen: null, // Uint32Array: the frame number it was placed in
		frameNo: 0,
		focus: 0,
		G: [1, 0, 0, 0], // the focus's frame on screen (ar, ai, br, bi)
		anim: null,
		pool: [],
		labels: [],
		stats: { frames: 0, work: 0, worst: 0, elapsed: 0, transitions: 0, drawn: 0 },
		colour: null,
	};

	/* --- Mobius transformations of the disk: z -> (a z + b) / (b' z + a'),
	 * (' conjugate), as [ar, ai, br, bi] with |a|^2 - |b|^2 = 1 ---------- */

	function mul(p, q) {
		const [a1r, a1i, b1r, b1i] = p, [a2r, a2i, b2r, b2i] = q;
		return [a1r * a2r - a1i * a2i + b1r * b2r + b1i * b2i,
			a1r * a2i + a1i * a2r + b1i * b2r - b1r * b2i,
			a1r * b2r - a1i * b2i + b1r * a2r + b1i * a2i,
			a1r * b2i + a1i * b2r + b1i * a2r - b1r * a2i];
	}

	/* The translation that takes 0 to (x, y). */
	function trans(x, y) {
		const k = 1 / Math.sqrt(Math.max(1e-300, 1 - x * x - y * y));
		return [k, 0, k * x, k * y];
	}

	function inv(p) {
		return [p[0], -p[1], -p[2], -p[3]];
	}

	/* Where the transformation sends (x, y). */
	function apply(p, x, y) {
		const [ar, ai, br, bi] = p;
		const nr = ar * x - ai * y + br, ni = ar * y + ai * x + bi;
		const dr = br * x + bi * y + ar, di = br * y - bi * x - ai;
		const d = dr * dr + di * di;
		return [(nr * dr + ni * di) / d, (ni * dr - nr * di) / d];
	}

	/* --- the tree ------------------------------------------------------ */

	/* Each node's leaves (at least 1): a node's index is above its
	 * parent's (breadth first; a graft is appended, then renumbered). */
	function leaves() {
		const memo = new Float64Array(H.n);
		for (let i = H.n - 1; i >= 0; i--) {
			let s = 0;
			for (const c of H.kids[i]) s += memo[c];
			memo[i] = Math.max(1, s);
		}
		return memo;
	}

	/* Lamping and Rao's layout, iteratively (a DSCG chain may be deep). */
	function layout() {
		const n = H.n, memo = leaves();
		H.ax = new Float64Array(n);
		H.ay = new Float64Array(n);
		H.rho = new Float64Array(n);
		const top = Math.max(1, H.data[0].total, ...H.kids[0].map((c) => H.data[c].total));
		for (let i = 0; i < n; i++)
			H.rho[i] = RHO_MIN + (RHO_MAX - RHO_MIN) *
				Math.sqrt(Math.min(1, Math.max(0, H.data[i].total) / top));
		const stack = [[0, 0, 2 * Math.PI]];
		while (stack.length) {
			const [i, lo, width] = stack.pop();
			const ks = H.kids[i], k = ks.length;
			if (!k) continue;
			let sum = 0;
			for (const c of ks) sum += memo[c];
			const share = ks.map((c) => width * (0.5 / k + 0.5 * memo[c] / sum));
			const d = Math.min(D_MAX, Math.max(D_MIN, Math.asinh(SPACING / Math.min(...share))));
			const r = Math.tanh(d / 2);
			let at = lo;
			ks.forEach((c, j) => {
				const phi = at + share[j] / 2, x = r * Math.cos(phi), y = r * Math.sin(phi);
				H.ax[c] = x;
				H.ay[c] = y;
				/* the share's ends seen from the child: the translation
				 * taking it to 0 moves the rim's points */
				const back = inv(trans(x, y));
				const [ux, uy] = apply(back, Math.cos(at), Math.sin(at));
				const [vx, vy] = apply(back, Math.cos(at + share[j]), Math.sin(at + share[j]));
				let a0 = Math.atan2(uy, ux), a1 = Math.atan2(vy, vx);
				let w = a1 - a0;
				while (w <= 0) w += 2 * Math.PI;
				if (share[j] >= 2 * Math.PI - 1e-9) { a0 = phi - Math.PI; w = 2 * Math.PI; }
				/* cut to HALF either side of the way out (phi), so
				 * that no grandchild sits on the edge to the parent */
				let from = phi - a0;
				while (from < 0) from += 2 * Math.PI;
				const l = Math.min(from, HALF), h = Math.min(w - from, HALF);
				stack.push([c, phi - l, l + h]);
				at += share[j];
			});
		}
	}

	/* The answer of /api/flame (flat, parents first) as this view's
	 * arrays; under is the node it grafts on (its entry 0), or -1. */
	function adopt(answer, under) {
		const base = H.n;
		const map = new Int32Array(answer.nodes.length);
		answer.nodes.forEach((e, k) => {
			if (k === 0 && under >= 0) {
				map[0] = under;
				H.data[under].node = e.node;
				H.kids[under] = [];
				return;
			}
			if (H.n >= MAX_NODES) { map[k] = -1; return; }
			const i = H.n++;
			map[k] = i;
			H.data[i] = { node: e.node || null, hidden: e.hidden || 0,
				total: e.node ? e.node.total || 0 : e.total || 0,
				parent: e.parent >= 0 ? map[e.parent] : -1 };
			H.kids[i] = [];
			if (e.parent >= 0 && map[e.parent] >= 0) H.kids[map[e.parent]].push(i);
		});
		return base;
	}

	/* Drop the nodes no longer reachable (a graft's old subtree). */
	function compactArrays() {
		const keep = new Int32Array(H.n).fill(-1), order = [0];
		for (let k = 0; k < order.length; k++) for (const c of H.kids[order[k]]) order.push(c);
		order.sort((a, b) => a - b).forEach((i, j) => { keep[i] = j; });
		const data = [], kids = [];
		for (const i of order) {
			data.push({ ...H.data[i], parent: H.data[i].parent >= 0 ? keep[H.data[i].parent] : -1 });
			kids.push(H.kids[i].map((c) => keep[c]));
		}
		H.data = data;
		H.kids = kids;
		H.n = data.length;
		return keep;
	}

	function alloc() {
		const n = H.n;
		H.parent = Int32Array.from(H.data, (d) => d.parent);
		for (const k of ['fr', 'fi', 'gr', 'gi', 'px', 'py']) H[k] = new Float64Array(n);
		H.seen = new Uint32Array(n);
		H.frameNo = 0;
	}

	/* --- drawing ----------------------------------------------------- */

	function hostOf(i) {
		for (let j = i; j >= 0; j = H.data[j].parent) {
			const n = H.data[j].node;
			if (!n) continue;
			if (n.host) return n.host;
			if (n.self_v && H.hooks && H.hooks.dims) {
				let best = -1;
				n.self_v.forEach((x, k) => { if (x > 0 && (best < 0 || x > n.self_v[best])) best = k; });
				if (best >= 0) return H.hooks.dims[best];
			}
		}
		return null;
	}

	function fill(i) {
		if (!H.data[i].node) return '#b0bec5';
		if (H.data[i].fill) return H.data[i].fill;
		const h = hostOf(i);
		H.data[i].fill = h ? H.colour(h) : '#90a4ae';
		return H.data[i].fill;
	}

	function nameOf(i) {
		const d = H.data[i];
		return d.node ? d.node.name : d.hidden + ' more';
	}

	function place(i, f) {
		H.fr[i] = f[0]; H.fi[i] = f[1]; H.gr[i] = f[2]; H.gi[i] = f[3];
		const d = f[0] * f[0] + f[1] * f[1];
		H.px[i] = (f[2] * f[0] - f[3] * f[1]) / d; // b / conj(a)
		H.py[i] = (f[2] * f[1] + f[3] * f[0]) / d;
		H.seen[i] = H.frameNo;
	}

	function frameOf(i) {
		return [H.fr[i], H.fi[i], H.gr[i], H.gi[i]];
	}

	/* Every node's frame from the focus's, G: its subtree down, then its
	 * ancestors up, each with its other subtrees.  A node at the rim
	 * (1 - |z|^2 < RIM) is placed, its subtree not. */
	function placeAll(G) {
		H.frameNo++;
		const down = (from, f) => {
			const stack = [from];
			place(from, f);
			while (stack.length) {
				const i = stack.pop();
				if (1 - H.px[i] * H.px[i] - H.py[i] * H.py[i] < RIM) continue;
				const fi = frameOf(i);
				for (const c of H.kids[i]) {
					place(c, mul(fi, trans(H.ax[c], H.ay[c])));
					stack.push(c);
				}
			}
		};
		let i = H.focus, f = G;
		down(i, f);
		while (H.parent[i] >= 0) {
			const p = H.parent[i];
			f = mul(f, inv(trans(H.ax[i], H.ay[i])));
			place(p, f);
			const fp = f;
			for (const c of H.kids[p])
				if (c !== i) down(c, mul(fp, trans(H.ax[c], H.ay[c])));
			i = p;
		}
	}

	/* The geodesic from point p to point q: the arc of the circle
	 * through them and p's inverse in the rim, or a line through 0. */
	function geodesic(x1, y1, x2, y2, R, cx, cy) {
		const sx = cx + R * x1, sy = cy + R * y1, tx = cx + R * x2, ty = cy + R * y2;
		const cross = x1 * y2 - y1 * x2;
		const line = 'M' + sx.toFixed(1) + ',' + sy.toFixed(1) + 'L' + tx.toFixed(1) + ',' + ty.toFixed(1);
		if (Math.abs(cross) < 1e-4) return line;
		/* the centre c of a circle orthogonal to the rim through p and
		 * q: c.p = (1 + |p|^2) / 2, c.q = (1 + |q|^2) / 2 */
		const e1 = (1 + x1 * x1 + y1 * y1) / 2, e2 = (1 + x2 * x2 + y2 * y2) / 2;
		const ccx = (e1 * y2 - e2 * y1) / cross, ccy = (x1 * e2 - x2 * e1) / cross;
		const rr = Math.sqrt(Math.max(0, ccx * ccx + ccy * ccy - 1));
		if (!isFinite(rr) || rr * R > 1e5) return line;
		/* SVG sweeps 1 the way angles grow (x towards y) */
		const sweep = (x1 - ccx) * (y2 - ccy) - (y1 - ccy) * (x2 - ccx) > 0 ? 1 : 0;
		return 'M' + sx.toFixed(1) + ',' + sy.toFixed(1) + 'A' + (rr * R).toFixed(1) + ',' +
			(rr * R).toFixed(1) + ' 0 0 ' + sweep + ' ' + tx.toFixed(1) + ',' + ty.toFixed(1);
	}

	function geometry() {
		const svg = document.getElementById('hyper-svg');
		const W = +svg.getAttribute('width'), Ht = +svg.getAttribute('height');
		return { cx: W / 2, cy: Ht / 2, R: Math.min(W, Ht) / 2 - 4 };
	}

	function grow(pool, parent, tag, cls, n) {
		while (pool.length < n) {
			const el = parent.append(tag).attr('class', cls).node();
			pool.push(el);
		}
	}

	/* One frame: place every node, draw the MAX_DRAWN largest of those
	 * at least MIN_PX wide, their edges to their parents, labels. */
	function draw() {
		const t0 = performance.now();
		placeAll(H.G);
		const { cx, cy, R } = geometry();
		const vis = [], size = new Float64Array(H.n);
		for (let i = 0; i < H.n; i++) {
			if (H.seen[i] !== H.frameNo) continue;
			const s = R * H.rho[i] * (1 - H.px[i] * H.px[i] - H.py[i] * H.py[i]) / 2;
			size[i] = s;
			if (s >= MIN_PX) vis.push(i);
		}
		if (vis.length > MAX_DRAWN) {
			vis.sort((a, b) => size[b] - size[a]);
			vis.length = MAX_DRAWN;
		}
		const svg = d3.select('#hyper-svg');
		grow(H.pool, svg.select('g.hnodes'), 'circle', 'hnode', vis.length);
		let edges = '';
		vis.forEach((i, k) => {
			const el = H.pool[k], p = H.parent[i];
			el.setAttribute('cx', (cx + R * H.px[i]).toFixed(2));
			el.setAttribute('cy', (cy + R * H.py[i]).toFixed(2));
			el.setAttribute('r', size[i].toFixed(2));
			if (el.__i !== i) {
				el.__i = i;
				el.setAttribute('fill', fill(i));
				el.setAttribute('data-i', i);
				el.setAttribute('data-parent', p);
				const d = H.data[i];
				if (d.node) el.setAttribute('data-id', d.node.id);
				else el.removeAttribute('data-id');
				el.setAttribute('class', d.node ? 'hnode' : 'hnode hidden');
			}
			el.style.display = '';
			if (p >= 0 && H.seen[p] === H.frameNo)
				edges += geodesic(H.px[p], H.py[p], H.px[i], H.py[i], R, cx, cy);
		});
		for (let k = vis.length; k < H.pool.length && H.pool[k].style.display !== 'none'; k++) {
			H.pool[k].style.display = 'none';
			H.pool[k].__i = -1;
		}
		svg.select('path.hedges').attr('d', edges);
		const named = vis.filter((i) => size[i] >= LABEL_PX).slice(0, MAX_LABELS);
		grow(H.labels, svg.select('g.hlabels'), 'text', 'hlabel', named.length);
		named.forEach((i, k) => {
			const el = H.labels[k];
			el.setAttribute('x', (cx + R * H.px[i] + size[i] + 2).toFixed(1));
			el.setAttribute('y', (cy + R * H.py[i] + 4).toFixed(1));
			if (el.__i !== i) { el.__i = i; el.textContent = nameOf(i); }
			el.style.display = '';
		});
		for (let k = named.length; k < H.labels.length; k++) {
			H.labels[k].style.display = 'none';
			H.labels[k].__i = -1;
		}
		const work = performance.now() - t0;
		H.stats.frames++;
		H.stats.work += work;
		H.stats.worst = Math.max(H.stats.worst, work);
		H.stats.drawn = vis.length;
		H.stats.most = Math.max(H.stats.most || 0, vis.length);
		d3.select('#hyper-note').text(H.n + ' nodes, ' + vis.length + ' drawn');
	}

	/* --- focus changes ------------------------------------------------- */

	/* Bring node i to the centre: its frame now, H0, is moved by the
	 * translations along the geodesic from its point p to 0, the point
	 * at t of the way q(t) = tanh(t atanh|p|) p/|p| taken to 0. */
	function centre(i) {
		if (H.seen[i] !== H.frameNo) return;
		const H0 = frameOf(i), x = H.px[i], y = H.py[i], m = Math.hypot(x, y);
		H.focus = i;
		H.G = H0;
		const start = performance.now(), seq = ++H.seq;
		H.stats.transitions++;
		if (m < 1e-12) { draw(); return; }
		const dist = Math.atanh(Math.min(m, 1 - 1e-15));
		const step = (now) => {
			if (seq !== H.seq) return;
			const t = Math.min(1, (now - start) / DURATION), e = d3.easeCubicInOut(t);
			const q = Math.tanh(e * dist) / m;
			H.G = mul(inv(trans(q * x, q * y)), H0);
			draw();
			if (t < 1) requestAnimationFrame(step);
			else {
				H.anim = null;
				H.stats.elapsed += performance.now() - start;
				d3.select('#hyper-svg').attr('data-moving', null);
			}
		};
		H.anim = seq;
		d3.select('#hyper-svg').attr('data-moving', '1');
		requestAnimationFrame(step);
	}

	/* A node clicked: to the centre, selected in the trees; a grey node
	 * (children under a pixel of the root's width) asks for its
	 * parent's subtree at the full width and grafts it. */
	function clicked(i) {
		const d = H.data[i];
		if (!d.node) {
			if (d.parent >= 0) growUnder(d.parent);
			return;
		}
		centre(i);
		if (H.linked) H.hooks.focus(H.tree, d.node.id);
	}

	async function growUnder(p) {
		const seq = ++H.seq, tree = H.tree;
		try {
			const r = await H.hooks.api('/api/flame', { ...H.hooks.params(tree),
				id: H.data[p].node.id, width: WIDTH });
			if (seq !== H.seq || tree !== H.tree) return;
			const G = frameOf(p);
			adopt(r, p);
			const keep = compactArrays();
			alloc();
			layout();
			H.focus = keep[p];
			H.G = G;
			draw();
			centre(H.focus);
		} catch (e) { d3.select('#hyper-note').text(e.message); }
	}

	/* Show a tree in /api/flame's form; focus on its root. */
	function show(answer, linked) {
		H.seq++;
		H.linked = linked !== false;
		H.n = 0;
		H.data = [];
		H.kids = [];
		adopt(answer, -1);
		alloc();
		layout();
		H.focus = 0;
		H.G = [1, 0, 0, 0];
		for (const el of H.pool) el.__i = -1;
		for (const el of H.labels) el.__i = -1;
		resize();
	}

	function resize() {
		const sec = document.getElementById('hyper');
		const w = Math.max(200, sec.clientWidth - 4);
		const h = Math.max(240, Math.min(w, Math.round(window.innerHeight * 0.55)));
		const svg = d3.select('#hyper-svg').attr('width', w).attr('height', h);
		const { cx, cy, R } = geometry();
		svg.attr('data-cx', cx).attr('data-cy', cy).attr('data-r', R);
		svg.select('circle.hdisk').attr('cx', cx).attr('cy', cy).attr('r', R);
		if (H.n) draw();
	}

	async function load(tree) {
		const seq = ++H.seq;
		try {
			const r = await H.hooks.api('/api/flame', { ...H.hooks.params(tree),
				id: H.hooks.rootId(tree), width: WIDTH });
			if (seq === H.seq && tree === H.tree && H.open) show(r, true);
		} catch (e) { d3.select('#hyper-note').text(e.message); }
	}

	function refresh(tree) {
		const on = H.open && (tree === 'dscg' || tree === 'ccsg');
		d3.select('#hyper').attr('hidden', on ? null : '');
		d3.select('#hyper-toggle').classed('active', H.open);
		if (!on) return;
		const key = tree + '?' + JSON.stringify(H.hooks.params(tree));
		if (key === H.key && H.n) return;
		H.key = key;
		H.tree = tree;
		load(tree);
	}

	/* A node selected elsewhere (the rows, the flame graph): to the
	 * centre if this view has it. */
	function selected(tree, id) {
		if (!H.open || tree !== H.tree || !H.n || !H.linked) return;
		const i = H.data.findIndex((d) => d.node && d.node.id === id);
		if (i >= 0 && i !== H.focus) centre(i);
	}

	/* hooks: as Flame.attach's (api, params, rootId, focus, current,
	 * hosts, dims). */
	function attach(hooks) {
		H.hooks = hooks;
		H.colour = d3.scaleOrdinal(d3.schemeTableau10 || d3.schemeCategory10).domain(hooks.hosts || []);
		const svg = d3.select('#hyper-svg');
		svg.append('circle').attr('class', 'hdisk');
		svg.append('path').attr('class', 'hedges');
		svg.append('g').attr('class', 'hnodes').on('click', (a) => {
			const ev = a instanceof Event ? a : d3.event;
			const i = ev.target.__i;
			if (i !== undefined && i >= 0) clicked(i);
		}).on('mouseover', (a) => {
			const ev = a instanceof Event ? a : d3.event, i = ev.target.__i;
			if (i === undefined || i < 0) return;
			const d = H.data[i];
			d3.select('#hyper-note').text(nameOf(i) + '  ' + hooks.fmtNs(d.total) +
				(d.node && d.node.calls !== undefined ? '  x' + d.node.calls : ''));
		});
		svg.append('g').attr('class', 'hlabels');
		d3.select('#viewbar').append('button').attr('id', 'hyper-toggle')
			.attr('title', 'a hyperbolic tree of this tree (Lamping and Rao) above its rows')
			.text('hyperbolic').on('click', () => {
				H.open = !H.open;
				H.key = '';
				refresh(hooks.current());
			});
		window.addEventListener('resize', () => { if (H.open && H.n) resize(); });
	}

	return { attach, refresh, selected, show, stats: () => H.stats, count: () => H.n,
		reset: () => { H.stats = { frames: 0, work: 0, worst: 0, elapsed: 0, transitions: 0, drawn: 0 }; },
		focusId: (id) => { const i = H.data.findIndex((d) => d.node && d.node.id === id); if (i >= 0) centre(i); return i; } };
})();
