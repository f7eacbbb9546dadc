/*
 * check-compact.c - the compaction engine (ccsg/compact/compact.h): the toy
 * example of the SOFTVIS'10 paper (Figure 2's tree as folded stacks gives
 * Figures 5, 6, 7, 8 and 10 with their weights), the refusals of 3.3.2,
 * compact-then-expand round trips, the take-over relation computed pair
 * by pair on random trees against the engine, and a chain of 10,000
 * frames.
 *
 * How the figures read in the paper's text version: Figure 2 is the trie
 * of Figure 1's three traces (x3, x1, x2); Figure 5 (classes only) is not
 * in the text and is Figure 2 at level 2, whose lib2 part Figure 7 shows
 * (lib2.Lung x6 > lib2.Muscle x6 > lib2.Nerve x5); in Figure 8 "the
 * right-hand side lib3" is the lib3 x1 under lib2.Muscle (the text lists
 * lib3.Pressure x1 and lib3.Blood x1 beside lib3 x5, which stays).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact/compact.h"
#include "json-valid.h"

static const char fig2_folded[] =
	"lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung.inhale();"
	"lib2.Muscle.contract();lib2.Nerve.transmit();lib3.Signal.travel() 3\n"
	"lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung.inhale();"
	"lib2.Muscle.contract();lib3.Pressure.foo();lib3.Blood.flow() 1\n"
	"lib1.Whale.breath();lib1.Mammal.inhale();lib2.Lung.inhale();"
	"lib2.Muscle.stop();lib2.Nerve.transmit();lib3.Signal.travel() 2\n";

static const char fig2[] = "lib1.Whale.breath() [x6]\n"
			   "  lib1.Mammal.inhale() [x6]\n"
			   "    lib2.Lung.inhale() [x6]\n"
			   "      lib2.Muscle.contract() [x4]\n"
			   "        lib2.Nerve.transmit() [x3]\n"
			   "          lib3.Signal.travel() [x3]\n"
			   "        lib3.Pressure.foo() [x1]\n"
			   "          lib3.Blood.flow() [x1]\n"
			   "      lib2.Muscle.stop() [x2]\n"
			   "        lib2.Nerve.transmit() [x2]\n"
			   "          lib3.Signal.travel() [x2]\n";

static const char fig5[] = "lib1.Whale [x6]\n"
			   "  lib1.Mammal [x6]\n"
			   "    lib2.Lung [x6]\n"
			   "      lib2.Muscle [x6]\n"
			   "        lib2.Nerve [x5]\n"
			   "          lib3.Signal [x5]\n"
			   "        lib3.Pressure [x1]\n"
			   "          lib3.Blood [x1]\n";

static const char fig6[] = "lib1 [x6]\n"
			   "  lib2 [x6]\n"
			   "    lib3 [x6]\n";

static const char fig7[] = "lib1 [x6]\n"
			   "  lib2.Lung [x6]\n"
			   "    lib2.Muscle [x6]\n"
			   "      lib2.Nerve [x5]\n"
			   "        lib3 [x5]\n"
			   "      lib3 [x1]\n";

static const char fig8[] = "lib1 [x6]\n"
			   "  lib2.Lung [x6]\n"
			   "    lib2.Muscle [x6]\n"
			   "      lib2.Nerve [x5]\n"
			   "        lib3 [x5]\n"
			   "      lib3.Pressure [x1]\n"
			   "        lib3.Blood [x1]\n";

static const char fig10[] = "lib1.Whale.breath() [x6]\n"
			    "  lib1.Mammal.inhale() [x6]\n"
			    "    lib2 [x6]\n"
			    "      lib3.Signal.travel() [x5]\n"
			    "      lib3.Pressure.foo() [x1]\n"
			    "        lib3.Blood.flow() [x1]\n";

#define TOP "lib1.Whale.breath();lib1.Mammal.inhale()"

static void load(struct compact_tree *t, const char *sep, const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(compact_tree_init(t, sep), 0);
	ck_assert_int_eq(compact_folded_read(t, f, "test", 1), 0);
	fclose(f);
	ck_assert_int_eq(compact_tree_build(t), 0);
}

static char *print(struct compact_tree *t, int format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(compact_tree_print(f, t, format), 0);
	fclose(f);
	return buf;
}

static void assert_json(const char *json)
{
	struct jv v;
	const char *bad = json_invalid(json, &v);

	ck_assert_msg(!bad, "%s in:\n%s", bad, json);
}

static void assert_text(struct compact_tree *t, const char *want,
			const char *what)
{
	char *got = print(t, COMPACT_TEXT);

	ck_assert_msg(!strcmp(got, want), "%s:\n%s\nwanted:\n%s", what, got,
		      want);
	free(got);
}

static int32_t node(struct compact_tree *t, const char *path)
{
	int32_t c = compact_tree_find(t, path);

	ck_assert_msg(c > 0, "no node '%s': %s", path, compact_tree_why(t));
	return c;
}

static void action(struct compact_tree *t, const char *verb, const char *path)
{
	int32_t c = node(t, path);
	int ret = !strcmp(verb, "compact") ? compact_tree_compact(t, c)
					   : compact_tree_expand(t, c);

	ck_assert_msg(ret == 0, "%s '%s': %d %s", verb, path, ret,
		      compact_tree_why(t));
	ck_assert_int_eq(compact_tree_check(t), 0);
}

/* The action is refused with a reason holding want; nothing changes. */
static void refused(struct compact_tree *t, const char *verb, const char *path,
		    const char *want)
{
	char *before = print(t, COMPACT_TEXT), *after;
	int32_t c = node(t, path);
	int ret = !strcmp(verb, "compact") ? compact_tree_compact(t, c)
					   : compact_tree_expand(t, c);

	ck_assert_msg(ret == -EPERM, "%s '%s' was not refused (%d)", verb, path,
		      ret);
	ck_assert_msg(strstr(compact_tree_why(t), want),
		      "%s '%s': '%s' lacks '%s'", verb, path,
		      compact_tree_why(t), want);
	after = print(t, COMPACT_TEXT);
	ck_assert_str_eq(after, before);
	ck_assert_int_eq(compact_tree_check(t), 0);
	free(before);
	free(after);
}

START_TEST(test_uniform_levels)
{
	struct compact_tree t;

	load(&t, ".", fig2_folded);
	assert_text(&t, fig2, "Figure 2 (the whole tree)");
	ck_assert_int_eq(compact_tree_level_max(&t, 2), 0);
	assert_text(&t, fig5, "Figure 5 (classes only)");
	ck_assert_int_eq(compact_tree_level_max(&t, 1), 0);
	assert_text(&t, fig6, "Figure 6 (packages only)");
	/* the inverse: at least 3 elements again */
	ck_assert_int_eq(compact_tree_level_min(&t, 3), 0);
	assert_text(&t, fig2, "level 1 then at least 3");
	ck_assert_int_eq(compact_tree_level_max(&t, 0), -EINVAL);
	compact_tree_release(&t);
}
END_TEST

/* Figures 7 and 8 by local expansion, Figure 10 by expansions of
 * everything but lib2. */
START_TEST(test_local_expansion)
{
	struct compact_tree t;

	load(&t, ".", fig2_folded);
	ck_assert_int_eq(compact_tree_level_max(&t, 1), 0);
	action(&t, "expand", "lib1;lib2");
	assert_text(&t, fig7, "Figure 7 (lib2 expanded from Figure 6)");
	action(&t, "expand", "lib1;lib2.Lung;lib2.Muscle;lib3");
	assert_text(&t, fig8,
		    "Figure 8 (the right-hand lib3 expanded from Figure 7)");

	ck_assert_int_eq(compact_tree_level_max(&t, 1), 0);
	action(&t, "expand", "lib1");
	action(&t, "expand", "lib1.Whale");
	action(&t, "expand", "lib1.Whale.breath();lib1.Mammal");
	action(&t, "expand", TOP ";lib2;lib3");
	action(&t, "expand", TOP ";lib2;lib3.Signal");
	action(&t, "expand", TOP ";lib2;lib3.Pressure");
	action(&t, "expand", TOP ";lib2;lib3.Pressure.foo();lib3.Blood");
	assert_text(&t, fig10, "Figure 10 (by expansions from Figure 6)");
	compact_tree_release(&t);
}
END_TEST

/* The level of every original node, in the order of the folded input's
 * first appearance (the trie's order). */
static void assert_levels(struct compact_tree *t, const int *want, size_t n)
{
	ck_assert_int_eq(t->n, n + 1);
	for (size_t v = 1; v <= n; v++) {
		char name[128];
		int32_t k = t->orig[v].name;

		compact_tree_node_name(t, t->orig[v].comp, name, sizeof(name));
		ck_assert_msg(t->orig[v].level == want[v - 1],
			      "node %zu (%s, in '%s'): level %d, want %d", v,
			      t->elems[t->trie[t->trie[k].parent].elem], name,
			      t->orig[v].level, want[v - 1]);
	}
}

/* Figure 10 from Figure 2 by local compaction alone, through the two
 * refusals of 3.3.2 a user meets on the way; the levels are Figure 9's. */
START_TEST(test_figure10_by_compaction)
{
	/* trie order: breath, inhale, Lung.inhale, contract, transmit,
	 * travel, foo, flow, stop, transmit, travel */
	static const int fig9[] = { 3, 3, 1, 1, 1, 3, 3, 3, 1, 1, 3 };
	struct compact_tree t;
	char *json;
	int32_t c;

	load(&t, ".", fig2_folded);
	action(&t, "compact", TOP ";lib2.Lung.inhale()");
	refused(&t, "compact", TOP ";lib2.Lung",
		"'lib2' would take over '" TOP ";lib2.Lung;lib2.Muscle.");
	action(&t, "compact", TOP ";lib2.Lung;lib2.Muscle.stop()");
	refused(&t, "compact", TOP ";lib2.Lung",
		"'lib2' would take over '" TOP
		";lib2.Lung;lib2.Muscle;lib2.Nerve.transmit()' "
		"across more than one level of the hierarchy (3.3.2)");
	action(&t, "compact",
	       TOP ";lib2.Lung;lib2.Muscle;lib2.Nerve.transmit()");
	action(&t, "compact", TOP ";lib2.Lung");
	assert_text(&t, fig10, "Figure 10 (lib2 compacted from Figure 2)");
	assert_levels(&t, fig9, sizeof(fig9) / sizeof(fig9[0]));

	/* merged weights: self summed, total over the highest nodes */
	c = node(&t, TOP ";lib2");
	ck_assert(t.nodes[c].self == 0 && t.nodes[c].total == 6 &&
		  t.nodes[c].members == 5);
	c = node(&t, TOP ";lib2;lib3.Signal.travel()");
	ck_assert(t.nodes[c].self == 5 && t.nodes[c].total == 5 &&
		  t.nodes[c].members == 2);
	json = print(&t, COMPACT_JSON);
	assert_json(json);
	ck_assert_ptr_nonnull(
		strstr(json, "{\"name\": \"lib2\", \"elements\": [\"lib2\"], "
			     "\"self\": 0, \"total\": 6, \"nodes\": 5, "
			     "\"children\": ["));
	ck_assert_ptr_nonnull(strstr(
		json, "{\"name\": \"lib3.Signal.travel()\", \"elements\": "
		      "[\"lib3\", \"Signal\", \"travel()\"], \"self\": 5, "
		      "\"total\": 5, \"nodes\": 2, \"children\": []}"));
	free(json);
	compact_tree_release(&t);
}
END_TEST

START_TEST(test_refusals)
{
	struct compact_tree t;
	int32_t c;

	load(&t, ".", fig2_folded);
	ck_assert_int_eq(compact_tree_level_max(&t, 1), 0);
	action(&t, "expand", "lib1;lib2");
	/* Figure 7: lib2.Muscle cannot become lib2 below lib2.Lung */
	refused(&t, "compact", "lib1;lib2.Lung;lib2.Muscle",
		"'lib2' would be a prefix of its parent's name 'lib2.Lung' "
		"(3.3.2: a node "
		"cannot be compacted below its parent's level)");
	refused(&t, "compact", "lib1;lib2.Lung;lib2.Muscle;lib2.Nerve",
		"below its parent's level");
	refused(&t, "compact", "lib1",
		"cannot compact 'lib1': it shows one element");
	/* unrelated names may sit at a lower level below (lib3 under
	 * lib2.Nerve) */
	action(&t, "compact", "lib1;lib2.Lung");
	assert_text(&t, fig6, "lib2.Lung compacted in Figure 7");
	ck_assert_int_eq(compact_tree_level_min(&t, 3), 0);
	refused(&t, "expand", TOP ";lib2.Lung.inhale()",
		"cannot expand '" TOP
		";lib2.Lung.inhale()': it shows its whole name");
	/* paths */
	ck_assert_int_eq(compact_tree_find(&t, "lib1.Whale.breath();lib9"),
			 -ENOENT);
	ck_assert_str_eq(compact_tree_why(&t),
			 "no node 'lib1.Whale.breath();lib9'");
	ck_assert_int_eq(compact_tree_find(&t, "lib1.Whale.breath();"),
			 -ENOENT);
	ck_assert_int_eq(compact_tree_find(&t, ""), -ENOENT);
	ck_assert_int_eq(compact_tree_find(&t, "lib1.Whale"), -ENOENT);
	ck_assert_int_eq(compact_tree_compact(&t, 0), -EINVAL);
	ck_assert_int_eq(compact_tree_expand(&t, (int32_t)t.nnodes), -EINVAL);
	c = node(&t, TOP);
	ck_assert_int_eq(compact_tree_path(&t, c, NULL, 0), strlen(TOP));
	compact_tree_release(&t);
}
END_TEST

/*
 * A take-over across two levels far below the node acted on: compacting
 * a.x to a merges it with its sibling a.y, so their children b.y and b
 * become siblings and merge as b, which would then take over b.y's child
 * b.z.w (three elements).
 */
START_TEST(test_refusal_below)
{
	static const char text[] = "p.q.r;a.x.f;b.y.f;b.z.w 1\n"
				   "p.q.r;a.y.f;b.q.f 1\n";
	/* p.q.r, a.x.f, b.y.f, b.z.w, a.y.f, b.q.f */
	static const int32_t levels[] = { 0, 3, 2, 2, 3, 2, 1 };
	struct compact_tree t;

	load(&t, ".", text);
	ck_assert_int_eq(compact_tree_set_levels(&t, levels), 0);
	refused(&t, "compact", "p.q.r;a.x",
		"cannot compact 'p.q.r;a.x': 'b' would take over "
		"'p.q.r;a.x;b.y;b.z.w' ");
	compact_tree_release(&t);
}
END_TEST

START_TEST(test_round_trips)
{
	struct compact_tree t;

	load(&t, ".", fig2_folded);
	ck_assert_int_eq(compact_tree_level_max(&t, 1), 0);
	/* Figure 6 -> 7 -> 6 -> 7 */
	action(&t, "expand", "lib1;lib2");
	action(&t, "compact", "lib1;lib2.Lung");
	assert_text(&t, fig6, "Figure 7, lib2.Lung compacted");
	action(&t, "expand", "lib1;lib2");
	assert_text(&t, fig7, "Figure 7 again");
	/* Figure 8: compacting lib2.Lung merges the two lib3 below; expanding
	 * lib2 gives the local expansion of lib3 back */
	action(&t, "expand", "lib1;lib2.Lung;lib2.Muscle;lib3");
	action(&t, "compact", "lib1;lib2.Lung");
	assert_text(&t, fig6, "Figure 8, lib2.Lung compacted");
	action(&t, "expand", "lib1;lib2");
	assert_text(&t, fig8, "Figure 8 again");
	/* the lib3 that merged lib3 x5 with lib3.Pressure expands by one
	 * element from what it shows: classes, not methods below Pressure */
	action(&t, "compact", "lib1;lib2.Lung");
	action(&t, "expand", "lib1;lib2;lib3");
	assert_text(&t,
		    "lib1 [x6]\n"
		    "  lib2 [x6]\n"
		    "    lib3.Signal [x5]\n"
		    "    lib3.Pressure [x1]\n"
		    "      lib3.Blood [x1]\n",
		    "lib3 expanded after the merge");
	/* Figure 2 -> 5 by compactions of each node, and back */
	ck_assert_int_eq(compact_tree_level_min(&t, 3), 0);
	action(&t, "compact", "lib1.Whale.breath()");
	action(&t, "compact", "lib1.Whale;lib1.Mammal.inhale()");
	action(&t, "compact", "lib1.Whale;lib1.Mammal;lib2.Lung.inhale()");
	action(&t, "compact",
	       "lib1.Whale;lib1.Mammal;lib2.Lung;lib2.Muscle.contract()");
	action(&t, "compact",
	       "lib1.Whale;lib1.Mammal;lib2.Lung;lib2.Muscle;lib2.Nerve."
	       "transmit()");
	action(&t, "compact",
	       "lib1.Whale;lib1.Mammal;lib2.Lung;lib2.Muscle;lib2.Nerve;"
	       "lib3.Signal.travel()");
	action(&t, "compact",
	       "lib1.Whale;lib1.Mammal;lib2.Lung;lib2.Muscle;lib3.Pressure.foo("
	       ")");
	action(&t, "compact",
	       "lib1.Whale;lib1.Mammal;lib2.Lung;lib2.Muscle;lib3.Pressure;"
	       "lib3.Blood.flow()");
	assert_text(&t, fig5, "Figure 5 by local compactions");
	action(&t, "expand", "lib1.Whale;lib1.Mammal;lib2.Lung;lib2.Muscle");
	action(&t, "compact",
	       "lib1.Whale;lib1.Mammal;lib2.Lung;lib2.Muscle.contract()");
	assert_text(&t, fig5, "Figure 5, lib2.Muscle expanded and compacted");
	compact_tree_release(&t);
}
END_TEST

/* Names: separators inside brackets, '::', whole names, recursion. */
START_TEST(test_names)
{
	static const char cxx[] = "main;std::vector<std::pair<int, "
				  "a::b>>::push_back(x::y const&);"
				  "std::vector<int>::size() 3\n"
				  "main;std::map<int, int>::at 2\n"
				  "main;::global 1\n";
	static const char frames[] = "main;foo;foo.part.0 1\n"
				     "main;foo;foo 2\n"
				     "main;lib2.x;lib2 4\n";
	struct compact_tree t;

	load(&t, "::", cxx);
	ck_assert_int_eq(compact_tree_level_max(&t, 1), 0);
	assert_text(&t,
		    "main [x6]\n"
		    "  std [x5]\n"
		    "  ::global [x1]\n",
		    "C++ names at level 1");
	ck_assert_int_eq(compact_tree_level_min(&t, 2), 0);
	assert_text(&t,
		    "main [x6]\n"
		    "  std::vector<std::pair<int, a::b>> [x3]\n"
		    "    std::vector<int> [x3]\n"
		    "  std::map<int, int> [x2]\n"
		    "  ::global [x1]\n",
		    "C++ names at level 2");
	compact_tree_release(&t);

	/* a whole name is a prefix of no other: foo is not foo.part.0; a
	 * frame calling itself is one node (condition 2 with equal names); a
	 * frame is not a package: lib2 (of lib2.x) is not the frame lib2 */
	load(&t, ".", frames);
	assert_text(&t,
		    "main [x7]\n"
		    "  lib2.x [x4]\n"
		    "    lib2 [x4]\n"
		    "  foo [x3]\n"
		    "    foo.part.0 [x1]\n",
		    "whole names");
	action(&t, "compact", "main;lib2.x");
	assert_text(&t,
		    "main [x7]\n"
		    "  lib2 [x4]\n"
		    "    lib2 [x4]\n"
		    "  foo [x3]\n"
		    "    foo.part.0 [x1]\n",
		    "lib2.x compacted");
	ck_assert_int_eq(compact_tree_level_max(&t, 1), 0);
	assert_text(&t,
		    "main [x7]\n"
		    "  lib2 [x4]\n"
		    "    lib2 [x4]\n"
		    "  foo [x3]\n"
		    "    foo [x1]\n",
		    "level 1");
	/* the path names the frame; its child is the package */
	ck_assert_int_eq(t.nodes[node(&t, "main;foo")].members, 2);
	ck_assert_int_eq(t.nodes[node(&t, "main;foo;foo")].members, 1);
	compact_tree_release(&t);
	ck_assert_int_eq(compact_tree_init(&t, ""), -EINVAL);
}
END_TEST

START_TEST(test_outputs)
{
	struct compact_tree t, u;
	char *folded, *json;
	FILE *f;

	load(&t, ".", fig2_folded);
	ck_assert_int_eq(compact_tree_level_max(&t, 2), 0);
	folded = print(&t, COMPACT_FOLDED);
	ck_assert_str_eq(
		folded,
		"lib1.Whale;lib1.Mammal;lib2.Lung;lib2.Muscle;lib2.Nerve;"
		"lib3.Signal 5\n"
		"lib1.Whale;lib1.Mammal;lib2.Lung;lib2.Muscle;lib3.Pressure;"
		"lib3.Blood 1\n");
	/* what the folded output says is the compacted tree */
	ck_assert_ptr_nonnull(f = fmemopen(folded, strlen(folded), "r"));
	ck_assert_int_eq(compact_tree_init(&u, "."), 0);
	ck_assert_int_eq(compact_folded_read(&u, f, "folded", 1), 0);
	fclose(f);
	ck_assert_int_eq(compact_tree_build(&u), 0);
	assert_text(&u, fig5, "the folded output read again");
	json = print(&t, COMPACT_JSON);
	assert_json(json);
	ck_assert(!strncmp(
		json,
		"{\"total\": 6, \"children\": [\n{\"name\": \"lib1.Whale\"",
		42));
	ck_assert_int_eq(compact_format_parse("folded"), COMPACT_FOLDED);
	ck_assert_int_eq(compact_format_parse("xml"), -1);
	free(json);
	free(folded);
	compact_tree_release(&u);
	compact_tree_release(&t);
}
END_TEST

/* --- the take-over relation, pair by pair ----------------------------------
 */

#define BF_MAX 48

static const char *const bf_elems[3][3] = { { "a", "b", "c" },
					    { "x", "y", "z" },
					    { "f", "g", "h" } };

/* A random tree and levels, and the relation computed from its
 * definition as the least relation closed under conditions (1) to (3). */
struct bf {
	int n; /* with the root, node 0 */
	int parent[BF_MAX], len[BF_MAX], el[BF_MAX][3], level[BF_MAX];
	double self[BF_MAX], total[BF_MAX];
	uint64_t takers[BF_MAX]; /* bit a of takers[b]: a takes over b */
	int uf[BF_MAX];
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rng >> 33) % n;
}

/* Does a's compacted name prefix b's?  A whole name prefixes itself only,
 * and a compacted name of the same elements is not its prefix. */
static int bf_prefix(const struct bf *f, int a, int b)
{
	int la = f->level[a], lb = f->level[b];

	if (la == f->len[a] ? lb != f->len[b] || la != lb
			    : la > lb || (la == lb && lb == f->len[b]))
		return 0;
	for (int i = 0; i < la; i++)
		if (f->el[a][i] != f->el[b][i])
			return 0;
	return 1;
}

static int bf_find(struct bf *f, int v)
{
	while (f->uf[v] != v)
		v = f->uf[v] = f->uf[f->uf[v]];
	return v;
}

static void bf_relation(struct bf *f)
{
	int changed = 1;

	for (int v = 0; v < f->n; v++) {
		f->takers[v] = 1ULL << v;
		f->uf[v] = v;
	}
	while (changed) {
		changed = 0;
		for (int b = 1; b < f->n; b++)
			for (int a = 1; a < f->n; a++) {
				uint64_t pa = f->takers[f->parent[a]],
					 pb = f->takers[f->parent[b]];

				if (f->takers[b] >> a & 1 ||
				    !bf_prefix(f, a, b))
					continue;
				if ((pb >> a & 1) ||
				    (pa & pb)) { /* (2) or (3) */
					f->takers[b] |= 1ULL << a;
					changed = 1;
				}
			}
	}
	for (int b = 1; b < f->n; b++)
		for (int a = 1; a < f->n; a++)
			if (f->takers[b] >> a & 1)
				f->uf[bf_find(f, a)] = bf_find(f, b);
}

static int bf_top(struct bf *f, int v)
{
	return f->parent[v] == 0 || bf_find(f, f->parent[v]) != bf_find(f, v);
}

/* The highest node of v's component with the shortest compacted name. */
static int bf_named(struct bf *f, int v)
{
	int best = -1;

	for (int u = 1; u < f->n; u++)
		if (bf_find(f, u) == bf_find(f, v) && bf_top(f, u) &&
		    (best < 0 || f->level[u] < f->level[best]))
			best = u;
	return best;
}

/* Does the relation break a limit of 3.3.2?  The reason, or NULL. */
static const char *bf_breach(struct bf *f)
{
	for (int b = 1; b < f->n; b++)
		for (int a = 1; a < f->n; a++)
			if (f->takers[b] >> a & 1 &&
			    f->level[b] - f->level[a] >= 2)
				return "a take-over across two levels";
	for (int v = 1; v < f->n; v++) {
		int x = bf_named(f, v);

		if (!bf_prefix(f, x, v))
			return "a node whose name does not extend its "
			       "compacted node's";
		if (bf_top(f, v) && f->parent[v]) {
			int y = bf_named(f, f->parent[v]);

			if (bf_prefix(f, x, y) && !bf_prefix(f, y, x))
				return "a name that is a proper prefix of its "
				       "parent's";
		}
	}
	return NULL;
}

static void bf_tree(struct bf *f, struct compact_tree *t)
{
	f->n = 2 + (int)rnd(BF_MAX - 2);
	ck_assert_int_eq(compact_tree_init(t, "."), 0);
	for (int v = 1; v < f->n; v++) {
		const char *e[3];
		int32_t name;

		/* mostly deep: the parent among the last few nodes */
		f->parent[v] = rnd(5) == 0 ? (int)rnd((unsigned)v)
					   : v - 1 - (int)rnd(v < 3 ? v : 3);
		f->len[v] = 1 + (int)rnd(3) + (rnd(2) ? 1 : 0);
		if (f->len[v] > 3)
			f->len[v] = 3;
		for (int i = 0; i < f->len[v]; i++)
			e[i] = bf_elems[i][f->el[v][i] = (int)rnd(i ? 2 : 3)];
		ck_assert_int_ge(
			name = compact_tree_name(t, e, (size_t)f->len[v]), 0);
		f->self[v] = rnd(4);
		ck_assert_int_eq(compact_tree_add(t, f->parent[v], name,
						  f->self[v], 0, 0),
				 v);
		f->level[v] = f->len[v];
	}
	compact_tree_sum_totals(t);
	for (int v = 1; v < f->n; v++)
		f->total[v] = t->orig[v].total;
	ck_assert_int_eq(compact_tree_build(t), 0);
}

/* The engine's compacted tree is the relation's components, with their
 * names and weights. */
static void bf_compare(struct bf *f, struct compact_tree *t)
{
	for (int v = 1; v < f->n; v++)
		f->level[v] = t->orig[v].level;
	bf_relation(f);
	ck_assert_msg(!bf_breach(f), "the engine's state breaks a limit: %s",
		      bf_breach(f));
	ck_assert_int_eq(compact_tree_check(t), 0);
	for (int u = 1; u < f->n; u++)
		for (int v = 1; v < f->n; v++)
			ck_assert_msg(
				(bf_find(f, u) == bf_find(f, v)) ==
					(t->orig[u].comp == t->orig[v].comp),
				"nodes %d and %d: merged %d by the relation, "
				"%d by the engine",
				u, v, bf_find(f, u) == bf_find(f, v),
				t->orig[u].comp == t->orig[v].comp);
	for (int v = 1; v < f->n; v++) {
		int32_t c = t->orig[v].comp;
		int x = bf_named(f, v);
		char want[64] = "", got[64];
		double self = 0, total = 0;

		for (int u = 1; u < f->n; u++)
			if (bf_find(f, u) == bf_find(f, v)) {
				self += f->self[u];
				total += bf_top(f, u) ? f->total[u] : 0;
			}
		ck_assert(t->nodes[c].self == self &&
			  t->nodes[c].total == total);
		for (int i = 0; i < f->level[x]; i++)
			snprintf(want + strlen(want),
				 sizeof(want) - strlen(want), "%s%s",
				 i ? "." : "", bf_elems[i][f->el[x][i]]);
		compact_tree_node_name(t, c, got, sizeof(got));
		ck_assert_str_eq(got, want);
	}
}

/* Random levels: accepted exactly when the relation keeps the limits,
 * and then the engine's tree is the relation's. */
START_TEST(test_relation_random_levels)
{
	int accepted = 0, refused_n = 0;

	for (int trial = 0; trial < 400; trial++) {
		struct compact_tree t;
		struct bf f;

		bf_tree(&f, &t);
		bf_compare(&f, &t);
		for (int j = 0; j < 6; j++) {
			int32_t lv[BF_MAX], before[BF_MAX];
			const char *breach;
			int ret;

			for (int v = 1; v < f.n; v++) {
				before[v] = t.orig[v].level;
				lv[v] = f.level[v] =
					1 + (int)rnd((unsigned)f.len[v]);
			}
			bf_relation(&f);
			breach = bf_breach(&f);
			ret = compact_tree_set_levels(&t, lv);
			ck_assert_msg(ret == (breach ? -EPERM : 0),
				      "trial %d: %d, relation: %s", trial, ret,
				      breach ? breach : "fine");
			if (ret) {
				refused_n++;
				ck_assert(compact_tree_why(&t)[0]);
				for (int v = 1; v < f.n; v++)
					ck_assert_int_eq(t.orig[v].level,
							 before[v]);
			} else {
				accepted++;
			}
			bf_compare(&f, &t);
		}
		compact_tree_release(&t);
	}
	ck_assert_msg(accepted > 300 && refused_n > 300,
		      "accepted %d, refused %d", accepted, refused_n);
}
END_TEST

static int32_t random_node(struct compact_tree *t)
{
	int32_t live[BF_MAX + 1];
	size_t n = 0;

	for (size_t c = 1; c < t->nnodes; c++)
		if (t->nodes[c].members)
			live[n++] = (int32_t)c;
	return live[rnd((unsigned)n)];
}

/* Random actions: every state is the relation's and keeps the limits; a
 * refused action changes nothing; expand undoes an accepted compact. */
START_TEST(test_relation_random_actions)
{
	int compacted = 0, refused_n = 0, exact = 0, expanded = 0;

	for (int trial = 0; trial < 150; trial++) {
		struct compact_tree t;
		struct bf f;

		bf_tree(&f, &t);
		for (int step = 0; step < 40; step++) {
			int32_t before[BF_MAX],
				c = random_node(&t),
				anchor = t.nodes[c].first_member;
			char *text = print(&t, COMPACT_TEXT), *again;
			int r = (int)rnd(10), ret, uniform = 1;

			for (int v = 1; v < f.n; v++) {
				before[v] = t.orig[v].level;
				uniform &= before[v] ==
					   compact_tree_node_elements(
						   &t, t.orig[v].comp);
			}
			if (r == 0)
				ret = compact_tree_level_max(&t,
							     1 + (int)rnd(3));
			else if (r == 1)
				ret = compact_tree_level_min(&t,
							     1 + (int)rnd(3));
			else if (r < 6)
				ret = compact_tree_expand(&t, c);
			else
				ret = compact_tree_compact(&t, c);
			ck_assert_msg(ret == 0 || ret == -EPERM,
				      "action %d: %d", r, ret);
			if (ret) {
				refused_n++;
				again = print(&t, COMPACT_TEXT);
				ck_assert_str_eq(again, text);
				free(again);
				for (int v = 1; v < f.n; v++)
					ck_assert_int_eq(t.orig[v].level,
							 before[v]);
			} else if (r >= 2 && r < 6) {
				expanded++;
			}
			bf_compare(&f, &t);
			if (!ret && r >= 6) {
				compacted++;
				ck_assert_int_eq(
					compact_tree_expand(
						&t, t.orig[anchor].comp),
					0);
				bf_compare(&f, &t);
				again = print(&t, COMPACT_TEXT);
				ck_assert_msg(
					!strcmp(again, text),
					"compact then expand:\n%s\nwas:\n%s",
					again, text);
				free(again);
				if (uniform) {
					exact++;
					for (int v = 1; v < f.n; v++)
						ck_assert_int_eq(
							t.orig[v].level,
							before[v]);
				}
				bf_compare(&f, &t);
				/* and again, to go on from the compacted tree
				 */
				ck_assert_int_eq(
					compact_tree_compact(
						&t, t.orig[anchor].comp),
					0);
				bf_compare(&f, &t);
			}
			free(text);
		}
		compact_tree_release(&t);
	}
	ck_assert_msg(
		compacted > 300 && refused_n > 300 && exact > 300 &&
			expanded > 300,
		"compacted %d (%d exactly undone), expanded %d, refused %d",
		compacted, exact, expanded, refused_n);
}
END_TEST

/* --- depth -------------------------------------------------------------------
 */

#define CHAIN 10000

START_TEST(test_deep_chain)
{
	size_t cap = (size_t)CHAIN * 40, len = 0;
	char *text = malloc(cap), *out, *path;
	struct compact_tree t;
	int32_t deepest = 0;
	size_t need;

	ck_assert_ptr_nonnull(text);
	for (int i = 0; i < CHAIN; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"%slib%d.C%d.m%d()", i ? ";" : "",
					i / 1000, i / 10, i);
	len += (size_t)snprintf(text + len, cap - len, " 1\n");
	load(&t, ".", text);
	ck_assert_int_eq(t.live, CHAIN + 1);
	/* the folded output is the input */
	out = print(&t, COMPACT_FOLDED);
	ck_assert_str_eq(out, text);
	free(out);
	ck_assert_int_eq(compact_tree_level_max(&t, 1), 0);
	ck_assert_int_eq(t.live, 10 + 1);
	out = print(&t, COMPACT_TEXT);
	ck_assert_str_eq(
		out, "lib0 [x1]\n  lib1 [x1]\n    lib2 [x1]\n      lib3 [x1]\n"
		     "        lib4 [x1]\n          lib5 [x1]\n            lib6 "
		     "[x1]\n"
		     "              lib7 [x1]\n                lib8 [x1]\n"
		     "                  lib9 [x1]\n");
	free(out);
	ck_assert_int_eq(compact_tree_level_min(&t, 3), 0);
	ck_assert_int_eq(t.live, CHAIN + 1);
	/* the deepest node by its path, compacted and expanded */
	for (int32_t c = t.nodes[0].first_child; c >= 0;
	     c = t.nodes[c].first_child)
		deepest = c;
	need = compact_tree_path(&t, deepest, NULL, 0);
	ck_assert_ptr_nonnull(path = malloc(need + 1));
	ck_assert_int_eq(compact_tree_path(&t, deepest, path, need + 1), need);
	ck_assert_int_eq(compact_tree_find(&t, path), deepest);
	free(path);
	/* lib9.C999 would be above its parent lib9.C999.m9998() */
	ck_assert_int_eq(compact_tree_compact(&t, deepest), -EPERM);
	/* the top takes over its class's frames below it, and back */
	ck_assert_int_eq(compact_tree_compact(&t, t.orig[1].comp), 0);
	ck_assert_int_eq(t.live, CHAIN - 9 + 1);
	ck_assert_int_eq(compact_tree_expand(&t, t.orig[1].comp), 0);
	ck_assert_int_eq(t.live, CHAIN + 1);
	/* compacting the top makes the 1000 frames of lib0 one node, class by
	 * class first (3.3.2) */
	ck_assert_int_eq(compact_tree_level_max(&t, 2), 0);
	ck_assert_int_eq(t.live, CHAIN / 10 + 1);
	ck_assert_int_eq(compact_tree_compact(&t, t.orig[1].comp), 0);
	ck_assert_int_eq(t.live, CHAIN / 10 - 100 + 1 + 1);
	ck_assert_int_eq(t.nodes[t.orig[1].comp].members, 1000);
	out = print(&t, COMPACT_JSON);
	ck_assert_ptr_nonnull(strstr(out, "{\"name\": \"lib9.C999\""));
	free(out);
	compact_tree_release(&t);

	/* a frame calling itself 10,000 times is one node */
	len = 0;
	for (int i = 0; i < CHAIN; i++)
		len += (size_t)snprintf(text + len, cap - len, "%sf",
					i ? ";" : "");
	snprintf(text + len, cap - len, " 7\n");
	load(&t, ".", text);
	ck_assert_int_eq(t.live, 2);
	ck_assert(t.nodes[t.orig[1].comp].total == 7 &&
		  t.nodes[t.orig[1].comp].self == 7);
	ck_assert_int_eq(t.nodes[t.orig[1].comp].members, CHAIN);
	compact_tree_release(&t);
	free(text);
}
END_TEST

Suite *compact_suite(void)
{
	Suite *s = suite_create("compact");
	TCase *tc = tcase_create("figures");
	TCase *rel = tcase_create("relation");

	tcase_add_test(tc, test_uniform_levels);
	tcase_add_test(tc, test_local_expansion);
	tcase_add_test(tc, test_figure10_by_compaction);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_refusal_below);
	tcase_add_test(tc, test_round_trips);
	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_outputs);
	tcase_add_test(tc, test_deep_chain);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	tcase_add_test(rel, test_relation_random_levels);
	tcase_add_test(rel, test_relation_random_actions);
	tcase_set_timeout(rel, 120);
	suite_add_tcase(s, rel);
	return s;
}
