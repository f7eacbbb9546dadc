/*
 * pes.js - the program execution sequence of a thread selected in the
 * DSCG (issue 39, item 5), in the three views of the Chitra paper's
 * Section 2.2 as `ccsg pes --view` draws them: the time view (the state
 * against the time since the sequence's start, in s, ms, us or ns,
 * whichever its span reads best in, the absolute start in the title),
 * the event view (the state against the entry's index) and the frequency
 * view (the periodogram in Hz, by default up to where 99% of the power
 * lies below and a quarter more, or every bin, on a linear or a
 * logarithmic axis).  The sequence comes from /api/pes (api-pes.c, the
 * engine of ccsg/pes); dragging across the time or the event view clips
 * the sequence to what was dragged over (2.3.1): the server clips it and
 * every view is drawn again, the frequency view of what is left too.
 * app.js calls Pes.attach() once and Pes.selected() with each node
 * selected.
 */
'use strict';

const Pes = (() => {
	const W = 440, HT = 150, M = { l: 150, r: 10, t: 18, b: 28 };
	const P = { hooks: null, thread: null, clips: [], answer: null, seq: 0 };

	/* The unit the span reads best in, as ccsg pes's pictures have it. */
	function unitOf(span) {
		if (span >= 1e9) return [1e9, 's'];
		if (span >= 1e6) return [1e6, 'ms'];
		if (span >= 1e3) return [1e3, 'us'];
		return [1, 'ns'];
	}

	/* The y axis's names, every k-th when they would overlap; a long
	 * name shortened in the middle. */
	function yAxis(g, y, states) {
		const k = Math.max(1, Math.ceil(states.length * 12 * 1.35 / (HT - M.t - M.b)));
		const short = (s) => (s.length <= 24 ? s : s.slice(0, 11) + '\u2026' + s.slice(-11));
		g.call(d3.axisLeft(y).tickValues(states.map((s, i) => i).filter((i) => i % k === 0))
			.tickFormat((i) => short(states[i])));
		g.selectAll('text').attr('class', 'state');
	}

	function frame(id, title) {
		const svg = d3.select('#' + id).attr('width', W).attr('height', HT);
		svg.selectAll('*').remove();
		svg.append('text').attr('class', 'title').attr('x', 4).attr('y', 12).text(title);
		return svg;
	}

	/* A step (time view) or a line (event view) through the points. */
	function sequenceView(id, view, x, xs, title, xlabel) {
		const svg = frame(id, title), states = view.states;
		const y = d3.scaleLinear().domain([0, Math.max(1, states.length - 1)])
			.range([HT - M.b, M.t + 4]);
		svg.append('g').attr('class', 'xaxis').attr('transform', 'translate(0,' + (HT - M.b) + ')')
			.call(d3.axisBottom(x).ticks(5));
		svg.append('text').attr('class', 'xlabel').attr('x', W - M.r).attr('y', HT - 2)
			.attr('text-anchor', 'end').text(xlabel);
		yAxis(svg.append('g').attr('transform', 'translate(' + M.l + ',0)'), y, states);
		const line = (id === 'pes-time' ? d3.line().curve(d3.curveStepAfter) : d3.line())
			.x((p, i) => x(xs[i])).y((p) => y(p[1]));
		svg.append('path').attr('class', 'pes-line').attr('d', line(view.points));
		return svg;
	}

	function freqView(f) {
		const log = document.getElementById('pes-log').checked;
		const all = document.getElementById('pes-all').checked;
		const pw = f.power, nf = pw.length;
		/* as ccsg pes: bins 1 on hold 99% of the power below share */
		let total = 0, acc = 0, share = nf - 1;
		for (let j = 1; j < nf; j++) total += pw[j];
		for (let j = 1; j < nf && total > 0; j++)
			if ((acc += pw[j]) >= 0.99 * total) { share = j; break; }
		let to = all ? nf - 1 : Math.min(nf - 1, share + Math.floor(share / 4) + 1);
		if (log && to < 10) to = Math.min(nf - 1, 10);
		const from = log ? 1 : 0, bw = f.bin_width;
		const title = 'frequency view, ' + (all ? 'every bin up to ' + d3.format('.4~s')(to * bw)
			: '99% of the power below ' + d3.format('.4~s')(share * bw)) + ' Hz';
		const svg = frame('pes-freq', title);
		const x = (log ? d3.scaleLog().domain([bw, Math.max(to, 2) * bw])
			: d3.scaleLinear().domain([0, Math.max(to, 1) * bw])).range([M.l, W - M.r]);
		const top = Math.max(1e-300, ...pw.slice(1, to + 1));
		const y = d3.scaleLinear().domain([0, top]).range([HT - M.b, M.t + 4]);
		svg.attr('data-scale', log ? 'log' : 'linear').attr('data-to', to * bw)
			.attr('data-share', share * bw);
		svg.append('g').attr('class', 'xaxis').attr('transform', 'translate(0,' + (HT - M.b) + ')')
			.call(d3.axisBottom(x).ticks(5, log ? '~s' : undefined));
		svg.append('g').attr('transform', 'translate(' + M.l + ',0)').call(d3.axisLeft(y).ticks(4, '~s'));
		svg.append('text').attr('class', 'xlabel').attr('x', W - M.r).attr('y', HT - 2)
			.attr('text-anchor', 'end').text('frequency (Hz)');
		const bars = [];
		for (let j = Math.max(1, from); j <= to; j++) bars.push(j);
		svg.append('path').attr('class', 'pes-bars').attr('d', bars.map((j) =>
			'M' + x(j * bw).toFixed(1) + ',' + y(0).toFixed(1) + 'V' + y(pw[j]).toFixed(1)).join(''));
	}

	/* Drag across a view: the range dragged over, clipped. */
	function brush(svg, x, kind, toSpec) {
		svg.append('g').attr('class', 'pes-brush').call(d3.brushX()
			.extent([[M.l, M.t], [W - M.r, HT - M.b]])
			.on('end', function (a) {
				const ev = a && a.selection !== undefined ? a : d3.event;
				if (!ev || !ev.selection) return;
				const [a0, a1] = ev.selection.map(x.invert);
				P.clips = [kind + ':' + toSpec(a0) + ':' + toSpec(a1)];
				load();
			}));
	}

	function draw(r) {
		const t = r.time, start = t.points[0][0];
		const end = t.end !== undefined ? t.end : t.points[t.points.length - 1][0];
		const [per, unit] = unitOf(end - start);
		const xs = t.points.map((p) => (p[0] - start) / per);
		const xt = d3.scaleLinear().domain([0, Math.max((end - start) / per, 1e-9)]).range([M.l, W - M.r]);
		const sv = sequenceView('pes-time', t, xt, xs, 'time view, starting at ' + start + ' ns',
			'time (' + unit + ')');
		sv.attr('data-unit', unit).attr('data-start', start).attr('data-span', end - start);
		brush(sv, xt, 'time', (v) => Math.round(start + v * per));
		const ev = r.event, n = ev.points.length;
		const xe = d3.scaleLinear().domain([0, Math.max(1, n - 1)]).range([M.l, W - M.r]);
		const se = sequenceView('pes-event', ev, xe, ev.points.map((p) => p[0]), 'event view, ' + n +
			' entries', 'event');
		brush(se, xe, 'event', (v) => Math.max(0, Math.min(n - 1, Math.round(v))));
		freqView(r.frequency);
		d3.select('#pes-head').text('PES of thread ' + r.thread + (P.clips.length ? ' (clipped ' +
			P.clips.join(' ') + ')' : '') + (r.skipped ? ', ' + r.skipped + ' calls left out' : ''));
		d3.select('#pes-reset').attr('hidden', P.clips.length ? null : '');
	}

	async function load() {
		const seq = ++P.seq;
		try {
			const r = await P.hooks.api('/api/pes', { thread: P.thread, clip: P.clips });
			if (seq !== P.seq) return;
			P.answer = r;
			d3.select('#pes').attr('hidden', null);
			draw(r);
		} catch (e) {
			if (seq === P.seq) d3.select('#pes-head').text(e.message);
		}
	}

	/* A node selected: a DSCG node that ran on a thread shows that
	 * thread's sequence; anything else hides it. */
	function selected(tree, n) {
		if (tree !== 'dscg' || n.proc_id === undefined || n.tid === undefined) {
			d3.select('#pes').attr('hidden', '');
			P.thread = null;
			P.seq++;
			return;
		}
		const th = n.proc_id + ':' + n.tid;
		if (th === P.thread) return;
		P.thread = th;
		P.clips = [];
		load();
	}

	function attach(hooks) {
		P.hooks = hooks;
		d3.selectAll('#pes-log, #pes-all').on('change', () => { if (P.answer) freqView(P.answer.frequency); });
		d3.select('#pes-reset').on('click', () => { P.clips = []; load(); });
	}

	return { attach, selected };
})();
