/*
 * timeline.js - the viewer's chain timeline (issue 39, item 3), as
 * Jaeger's trace view and Perfetto's slices draw one: pick a chain (the
 * request types, then their chains slowest first, from /api/chains), and
 * /api/timeline (ccsg/serve/api-timeline.c) gives its slices on the
 * clock the exports align the hosts on.  Swimlanes host > process >
 * thread; a slice per call side (client: the stub, server: the skeleton)
 * and per thread the chain spawned, as long as its wall time, the CPU
 * its thread used in it shaded inside (a darker band as high as CPU /
 * wall), slices nested on a lane as they nest in time; arrows for each
 * call (stub start to skeleton start), reply (skeleton end to stub end)
 * and spawn (thread create to thread start).  d3.zoom (Debian's node-d3)
 * zooms and pans the time axis.  Clicking a slice selects its node in
 * the trees (app.js's hook).  app.js calls Timeline.attach() once.
 */
'use strict';

const Timeline = (() => {
	const ROW = 18; // px a nesting level
	const LABEL = 210; // px of the lanes' labels
	const HEAD = 16; // px of a host's or a process's title
	const AXIS = 22;
	const T = {
		hooks: null,
		open: false,
		data: null, // the answer drawn
		x: null, // ns -> px, unzoomed
		zx: null, // zoomed
		colour: null,
		selected: null, // the slice clicked (its index)
		seq: 0,
	};

	function evOf(a) {
		return a instanceof Event ? a : d3.event;
	}

	/* Each slice's depth on its lane: nested as they nest in time. */
	function nestSlices(data) {
		const byLane = new Map();
		data.slices.forEach((s, i) => {
			s.index = i;
			if (!byLane.has(s.lane)) byLane.set(s.lane, []);
			byLane.get(s.lane).push(s);
		});
		const depth = new Map();
		for (const [lane, list] of byLane) {
			list.sort((a, b) => a.start_ns - b.start_ns || b.end_ns - a.end_ns ||
				(a.kind === 'thread' ? -1 : b.kind === 'thread' ? 1 : 0));
			const stack = [];
			let max = 0;
			for (const s of list) {
				/* the slices it is not inside end before it */
				while (stack.length && (stack[stack.length - 1].end_ns <= s.start_ns ||
					stack[stack.length - 1].end_ns < s.end_ns)) stack.pop();
				s.depth = stack.length;
				max = Math.max(max, s.depth);
				stack.push(s);
			}
			depth.set(lane, max + 1);
		}
		return depth;
	}

	/* The lanes' places: a title per host and per process, then each
	 * thread's lane as high as its deepest slice. */
	function layout(data) {
		const depth = nestSlices(data);
		const rows = []; // titles and lanes, top to bottom
		let y = AXIS, host = null, proc = null;
		data.lanes.forEach((l, i) => {
			if (l.host !== host) {
				rows.push({ kind: 'host', text: l.host || '(no host)', y, host: l.host });
				y += HEAD;
				host = l.host;
				proc = null;
			}
			if (l.proc_id !== proc) {
				rows.push({ kind: 'process', text: l.process, y, host: l.host });
				y += HEAD;
				proc = l.proc_id;
			}
			l.y = y;
			l.h = (depth.get(i) || 1) * ROW;
			rows.push({ kind: 'lane', text: 'thread ' + l.thread, y, h: l.h, host: l.host, lane: i });
			y += l.h + 4;
		});
		return { rows, height: y + 4 };
	}

	function sliceY(s) {
		return T.data.lanes[s.lane].y + s.depth * ROW;
	}

	function tip(ev, s) {
		const fmt = T.hooks.fmtNs, l = T.data.lanes[s.lane];
		const t = d3.select('#timeline-tip').style('display', null);
		t.selectAll('*').remove();
		t.append('b').text(s.name + (s.kind === 'thread' ? '' : ' (' + s.kind + ')'));
		const line = (k, v) => t.append('div').text(k + ': ' + v);
		line('where', l.host + ' ' + l.process + ' thread ' + l.tid);
		line('wall', fmt(s.end_ns - s.start_ns));
		line('cpu', fmt(s.cpu_ns));
		if (s.self_ns !== undefined) line('self (Equation 1)', fmt(s.self_ns));
		line('from the start', fmt(s.start_ns));
		if (s.failed) line('outcome', 'failed');
		t.style('left', Math.min(ev.clientX + 12, window.innerWidth - 260) + 'px')
			.style('top', Math.min(ev.clientY + 14, window.innerHeight - 140) + 'px');
	}

	/* Everything that moves with the time axis, from T.zx. */
	function place() {
		const x = T.zx, svg = d3.select('#timeline-svg');
		svg.select('g.taxis').call(d3.axisTop(x).ticks(Math.max(2, Math.floor((x.range()[1] - x.range()[0]) / 90)))
			.tickFormat((ns) => T.hooks.fmtNs(Math.round(ns))));
		svg.selectAll('g.tslice').each(function (s) {
			const x0 = x(s.start_ns), w = Math.max(1, x(s.end_ns) - x0);
			const g = d3.select(this).attr('transform', 'translate(' + x0 + ',' + sliceY(s) + ')');
			g.select('rect.twall').attr('width', w);
			g.select('rect.tcpu').attr('width', w);
			const fit = Math.floor((w - 6) / 6.5);
			g.select('text').text(fit < 3 ? '' : s.name.length <= fit ? s.name
				: s.name.slice(0, fit - 1) + '\u2026');
		});
		svg.selectAll('path.tarrow').attr('d', (a) => {
			const f = T.data.slices[a.from], to = T.data.slices[a.to];
			const x1 = x(a.from_ns), y1 = sliceY(f) + ROW / 2;
			const x2 = x(a.to_ns), y2 = sliceY(to) + ROW / 2;
			return 'M' + x1 + ',' + y1 + 'L' + x2 + ',' + y2;
		});
	}

	function draw(data) {
		T.data = data;
		const { rows, height } = layout(data);
		const el = document.getElementById('timeline-svg');
		const W = Math.max(400, Math.floor(el.parentNode.clientWidth) - 4);
		const span = Math.max(1, ...data.slices.map((s) => s.end_ns));
		T.x = d3.scaleLinear().domain([0, span]).range([0, W - LABEL - 10]);
		T.zx = T.x;
		const svg = d3.select(el).attr('width', W).attr('height', height);
		svg.selectAll('*').remove();
		d3.select('#timeline-tip').style('display', 'none');
		svg.append('defs').html('<marker id="tarrow-head" viewBox="0 0 8 8" refX="8" refY="4" ' +
			'markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0L8,4L0,8z"/></marker>' +
			'<clipPath id="timeline-clip"><rect x="0" y="0" width="' + (W - LABEL - 10) +
			'" height="' + height + '"/></clipPath>');
		const labels = svg.append('g').attr('class', 'tlabels');
		labels.selectAll('g').data(rows).join('g')
			.attr('class', (r) => 'trow ' + r.kind)
			.attr('transform', (r) => 'translate(0,' + r.y + ')')
			.each(function (r) {
				const g = d3.select(this);
				if (r.kind === 'lane')
					g.append('rect').attr('class', 'lane-bg').attr('width', W).attr('height', r.h);
				g.append('text').attr('x', r.kind === 'host' ? 4 : r.kind === 'process' ? 14 : 24)
					.attr('y', r.kind === 'lane' ? 13 : 12).text(r.text)
					.style('fill', r.kind === 'host' ? T.colour(r.host) : null);
			});
		const plot = svg.append('g').attr('class', 'tplot')
			.attr('transform', 'translate(' + LABEL + ',0)');
		plot.append('g').attr('class', 'taxis').attr('transform', 'translate(0,' + (AXIS - 2) + ')');
		const inner = plot.append('g').attr('clip-path', 'url(#timeline-clip)');
		const g = inner.selectAll('g.tslice').data(data.slices).join('g')
			.attr('class', (s) => 'tslice ' + s.kind + (s.failed ? ' failed' : '') +
				(T.selected === s.index ? ' selected' : ''))
			.attr('data-id', (s) => s.id).attr('data-kind', (s) => s.kind)
			.attr('data-name', (s) => s.name).attr('data-lane', (s) => s.lane)
			.attr('data-host', (s) => data.lanes[s.lane].host);
		g.append('rect').attr('class', 'twall').attr('height', ROW - 2)
			.attr('fill', (s) => d3.interpolateRgb(T.colour(data.lanes[s.lane].host), '#fff')(0.55));
		/* the CPU: a band at the bottom as high as CPU / wall */
		g.append('rect').attr('class', 'tcpu')
			.attr('y', (s) => (ROW - 2) * (1 - share(s)))
			.attr('height', (s) => (ROW - 2) * share(s))
			.attr('fill', (s) => T.colour(data.lanes[s.lane].host));
		g.append('text').attr('x', 3).attr('y', ROW - 6);
		g.on('mousemove', (a, b) => tip(evOf(a), a instanceof Event ? b : a))
			.on('mouseleave', () => d3.select('#timeline-tip').style('display', 'none'))
			.on('click', (a, b) => clicked(a instanceof Event ? b : a));
		inner.selectAll('path.tarrow').data(data.arrows.filter((a) => a.from >= 0 && a.to >= 0))
			.join('path').attr('class', (a) => 'tarrow ' + a.kind)
			.attr('data-kind', (a) => a.kind)
			.attr('data-from', (a) => a.from).attr('data-to', (a) => a.to)
			.attr('marker-end', 'url(#tarrow-head)');
		const zoom = d3.zoom().scaleExtent([1, 1e6])
			.translateExtent([[0, 0], [W - LABEL - 10, height]])
			.extent([[0, 0], [W - LABEL - 10, height]])
			.on('zoom', (a) => {
				const t = a && a.transform ? a.transform : d3.event.transform;
				T.zx = t.rescaleX(T.x);
				place();
			});
		svg.call(zoom).on('dblclick.zoom', null);
		T.zoom = zoom;
		place();
		const hosts = data.hosts.filter((h) => h.via)
			.map((h) => h.host + ' ' + (h.offset_ns >= 0 ? '+' : '') + T.hooks.fmtNs(h.offset_ns) +
				' \u00b1' + T.hooks.fmtNs(h.error_ns));
		d3.select('#timeline-note').text((data.truncated ? 'cut at the answer\'s limit; ' : '') +
			(hosts.length ? 'clocks aligned on ' + data.hosts.find((h) => !h.via).host + ': ' +
				hosts.join(', ') : ''));
	}

	function share(s) {
		const wall = s.end_ns - s.start_ns;
		return wall > 0 ? Math.min(1, s.cpu_ns / wall) : 0;
	}

	function clicked(s) {
		T.selected = s.index;
		d3.select('#timeline-svg').selectAll('g.tslice').classed('selected', (d) => d.index === s.index);
		T.hooks.select(s);
	}

	async function show(params) {
		const seq = ++T.seq;
		try {
			const r = await T.hooks.api('/api/timeline', params);
			if (seq === T.seq && T.open) {
				T.selected = null;
				draw(r);
			}
		} catch (e) { d3.select('#timeline-note').text(e.message); }
	}

	/* The request types (root functions) and their chains, slowest
	 * first; the slowest of the type chosen is shown. */
	async function fill(root) {
		const r = await T.hooks.api('/api/chains', root ? { root, limit: 200 } : { limit: 1000 });
		if (!root) {
			const types = new Map();
			for (const c of r.chains) types.set(c.root, (types.get(c.root) || 0) + 1);
			const sel = d3.select('#timeline-type');
			sel.selectAll('option').data([...types]).join('option')
				.attr('value', (d) => d[0]).text((d) => d[0] + ' (' + d[1] + ')');
			root = [...types.keys()][0];
			if (!root) {
				d3.select('#timeline-note').text('no chains in this trace');
				return;
			}
			return fill(root);
		}
		d3.select('#timeline-chain').selectAll('option')
			.data([{ chain: '', text: 'slowest ' + root }].concat(r.chains.map((c) => ({
				chain: c.chain, text: T.hooks.fmtNs(c.span_ns) + ', ' + c.calls + ' calls, ' +
					c.chain.slice(0, 12) + '\u2026' }))))
			.join('option').attr('value', (d) => d.chain).text((d) => d.text);
		document.getElementById('timeline-chain').value = '';
		await show({ root, pick: 'slowest' });
	}

	function toggle() {
		T.open = !T.open;
		d3.select('#timeline').attr('hidden', T.open ? null : '');
		d3.select('#timeline-toggle').classed('active', T.open);
		if (T.open && !T.data) fill().catch((e) => d3.select('#timeline-note').text(e.message));
	}

	/* hooks: api(path, params), fmtNs(ns), hosts (/api/info), select(slice)
	 * (the page selects its node in the trees). */
	function attach(hooks) {
		T.hooks = hooks;
		const scheme = d3.schemeTableau10 || d3.schemeCategory10;
		T.colour = d3.scaleOrdinal(scheme).domain(hooks.hosts || []);
		d3.select('#bar').insert('button', '#message').attr('id', 'timeline-toggle')
			.attr('title', 'a chain\'s calls in time, per host, process and thread').text('timeline')
			.on('click', toggle);
		d3.select('#timeline-type').on('change', function () {
			fill(this.value).catch((e) => d3.select('#timeline-note').text(e.message));
		});
		d3.select('#timeline-chain').on('change', function () {
			const root = document.getElementById('timeline-type').value;
			show(this.value ? { chain: this.value } : { root, pick: 'slowest' });
		});
		d3.select('#timeline-reset').on('click', () => {
			if (T.zoom) d3.select('#timeline-svg').call(T.zoom.transform, d3.zoomIdentity);
		});
	}

	return { attach, toggle };
})();
