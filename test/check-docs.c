/*
 * check-docs.c - the man pages and the Makefile's user-facing targets.
 *
 * tracedump(1), ccsg(1), causalctl(1) and libcausal(7), made from docs/ by
 * scripts/md2man.py, must render with man(1) and groff without a warning,
 * and name everything the programs accept: the commands and options come
 * from the tools' own help (so a new option without a line in its page
 * fails here), the environment variables from the strings libcausal.so
 * holds.  `make install` installs the pages, and `make help` lists every
 * target.  The README stays short, docs/README.md lists every doc, and no
 * paragraph is written twice in the README and docs/: each fact has one
 * place.
 */
#include <ctype.h>
#include <dirent.h>
#include <elf.h>

#include "tool-run.h"

static const char *const pages[] = { "tracedump.1", "ccsg.1", "causalctl.1",
				     "libcausal.7" };

/* The source tree, for the Makefile ($CAUSAL_SRC, set by `make test`). */
static const char *src_dir(void)
{
	const char *s = getenv("CAUSAL_SRC");

	if (!s || !*s)
		ck_abort_msg("CAUSAL_SRC is not set: run the suites with `make test`");
	return s;
}

static const char *page_path(const char *page)
{
	static char p[PATH_MAX];

	e2e_fmt(p, sizeof(p), "%s/man/%s", e2e_build(), page);
	ck_assert_msg(access(p, R_OK) == 0, "'%s' is not built", p);
	return p;
}

/* The page as man(1) renders it in the C locale, 80 columns. */
static char *render(const char *page)
{
	static const char *const env[] = { "LC_ALL=C", "MANWIDTH=80",
					   "MANPAGER=cat", "PAGER=cat", NULL };
	struct tool_out r = tool_run_env((const char *[]){ "/usr/bin/man",
				"--warnings", "-l", page_path(page), NULL },
				env, TOOL_DEADLINE_S);

	e2e_assert_exit(r.status, 0, page);
	ck_assert_msg(!r.err[0], "man -l %s: %s", page, r.err);
	ck_assert_msg(strstr(r.out, "NAME") && strlen(r.out) > 1000,
		      "man -l %s rendered %zu bytes", page, strlen(r.out));
	free(r.err);
	return r.out;
}

/* Does word occur in text, not as part of a longer name? */
static int has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; (p = strstr(p, word)); p++) {
		int before = p > text && (isalnum((unsigned char)p[-1]) ||
					  p[-1] == '_' || p[-1] == '-');
		int after = isalnum((unsigned char)p[n]) || p[n] == '_';

		if (!before && !after)
			return 1;
	}
	return 0;
}

START_TEST(test_pages_render_without_warnings)
{
	struct e2e t;

	e2e_init(&t);
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		struct tool_out r;

		free(render(pages[i]));
		/* groff's own warnings, all of them */
		r = tool_run((const char *[]){ "/usr/bin/groff", "-ww", "-z",
					       "-man", page_path(pages[i]), NULL });
		e2e_assert_exit(r.status, 0, pages[i]);
		ck_assert_msg(!r.err[0], "groff -ww %s: %s", pages[i], r.err);
		tool_out_release(&r);
	}
	e2e_release(&t);
}
END_TEST

/*
 * Every command `TOOL help` lists, and every option name of each
 * command's --help ("  -o, --output=DB  ..."), is in the page.
 */
static void check_tool_page(const char *tool, const char *page)
{
	struct tool_out r = tool_run((const char *[]){ tool_path(tool), "help", NULL });
	char *text = render(page), *lines[64];
	size_t n = tool_lines(r.out, lines, 64), i = 0, options = 0;

	while (i < n && strcmp(lines[i], "commands:"))
		i++;
	for (i++; i < n && lines[i][0]; i++) {
		char cmd[32], *cl[64];
		struct tool_out h;
		size_t hn, k = 0;

		if (strncmp(lines[i], "  ", 2) || lines[i][2] == ' ' ||
		    sscanf(lines[i], " %31s", cmd) != 1)
			continue;
		ck_assert_msg(has_word(text, cmd), "%s: no command '%s'", page, cmd);
		if (!strcmp(cmd, "help"))
			continue;
		h = tool_run((const char *[]){ tool_path(tool), cmd, "--help", NULL });
		e2e_assert_exit(h.status, 0, cmd);
		hn = tool_lines(h.out, cl, 64);
		while (k < hn && strcmp(cl[k], "options:"))
			k++;
		for (k++; k < hn && cl[k][0]; k++) {
			char names[128], *end, *name, *save;

			snprintf(names, sizeof(names), "%s", cl[k] + strspn(cl[k], " "));
			if (!(end = strstr(names, "  ")) || names[0] != '-')
				continue;	/* a wrapped help line */
			*end = '\0';
			for (name = strtok_r(names, ", ", &save); name;
			     name = strtok_r(NULL, ", ", &save)) {
				name[strcspn(name, "=")] = '\0';
				ck_assert_msg(has_word(text, name),
					      "%s: no option '%s' (of %s %s)",
					      page, name, tool, cmd);
				options++;
			}
		}
		tool_out_release(&h);
	}
	ck_assert_msg(options >= 3, "%s: only %zu options found in the help",
		      tool, options);
	free(text);
	tool_out_release(&r);
}

START_TEST(test_tool_pages_name_every_option)
{
	struct e2e t;

	e2e_init(&t);
	check_tool_page("tracedump", "tracedump.1");
	check_tool_page("ccsg", "ccsg.1");
	check_tool_page("causalctl", "causalctl.1");
	e2e_release(&t);
}
END_TEST

/*
 * The CAUSAL_* names in the library's read-only data: what it can
 * getenv(), and what its messages name (the section holds no debugging
 * strings, unlike .debug_str with its enum names).
 */
static size_t library_variables(char names[][64], size_t max)
{
	char path[PATH_MAX];
	size_t len, n = 0;
	char *elf;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *shstr;

	e2e_fmt(path, sizeof(path), "%s/libcausal.so", e2e_build());
	elf = e2e_slurp(path, &len);
	eh = (const Elf64_Ehdr *)elf;
	ck_assert(len > sizeof(*eh) && !memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
		  eh->e_ident[EI_CLASS] == ELFCLASS64);
	ck_assert(eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) <= len &&
		  eh->e_shstrndx < eh->e_shnum);
	sh = (const Elf64_Shdr *)(elf + eh->e_shoff);
	shstr = elf + sh[eh->e_shstrndx].sh_offset;
	for (size_t i = 0; i < eh->e_shnum; i++) {
		const char *s = elf + sh[i].sh_offset;
		size_t size = sh[i].sh_size;

		if (strcmp(shstr + sh[i].sh_name, ".rodata") ||
		    sh[i].sh_offset + size > len)
			continue;
		for (size_t k = 0; k + 7 < size; k++) {
			size_t m = 7, j;

			if (memcmp(s + k, "CAUSAL_", 7) ||
			    (k && (isupper((unsigned char)s[k - 1]) ||
				   isdigit((unsigned char)s[k - 1]) || s[k - 1] == '_')))
				continue;
			while (k + m < size && (isupper((unsigned char)s[k + m]) ||
						isdigit((unsigned char)s[k + m]) ||
						s[k + m] == '_'))
				m++;
			if (m == 7 || m >= 64)
				continue;
			for (j = 0; j < n; j++)
				if (strlen(names[j]) == m && !memcmp(names[j], s + k, m))
					break;
			if (j == n && n < max) {
				memcpy(names[n], s + k, m);
				names[n++][m] = '\0';
			}
		}
	}
	free(elf);
	return n;
}

START_TEST(test_libcausal_page_names_every_variable)
{
	char names[32][64];
	struct e2e t;
	size_t n;
	char *text;

	e2e_init(&t);
	n = library_variables(names, 32);
	/* CAUSAL_LOG_DIR, _BUFFER_KB, _FLUSH_MS, _CPU_EXACT_US at least */
	ck_assert_msg(n >= 4, "libcausal.so names %zu CAUSAL_ variables", n);
	text = render("libcausal.7");
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(has_word(text, names[i]),
			      "libcausal.7 does not describe %s", names[i]);
	/* one the library is getting now, documented ahead */
	ck_assert(has_word(text, "CAUSAL_LOG_DIR_TRUST"));
	free(text);
	e2e_release(&t);
}
END_TEST

/* `make ARGS` in the source tree, on the build under test, without the
 * outer make's jobserver. */
static struct tool_out run_make(const char *const args[])
{
	static const char *const env[] = { "MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=",
					   NULL };
	const char *argv[16] = { "/usr/bin/make", "-s", "-C", src_dir() };
	static char build[PATH_MAX + 8];
	size_t n = 4;

	e2e_fmt(build, sizeof(build), "BUILD=%s", e2e_build());
	argv[n++] = build;
	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return tool_run_env(argv, env, 300);
}

START_TEST(test_make_install_installs_the_pages)
{
	static const char *const installed[] = {
		"usr/share/man/man1/tracedump.1",
		"usr/share/man/man1/ccsg.1",
		"usr/share/man/man7/libcausal.7",
		"usr/bin/tracedump",
		"usr/bin/ccsg",
		"usr/lib/libcausal.so",
		"usr/share/man/man1/causalctl.1",
		"usr/bin/causalctl",
	};
	char dest[PATH_MAX + 16], path[2 * PATH_MAX];
	struct tool_out r;
	struct stat st;
	struct e2e t;

	e2e_init(&t);
	e2e_fmt(dest, sizeof(dest), "DESTDIR=%s/root", t.dir);
	r = run_make((const char *[]){ "install", "PREFIX=/usr", dest, NULL });
	e2e_assert_exit(r.status, 0, "make install");
	tool_out_release(&r);
	for (size_t i = 0; i < sizeof(installed) / sizeof(installed[0]); i++) {
		e2e_fmt(path, sizeof(path), "%s/root/%s", t.dir, installed[i]);
		ck_assert_msg(stat(path, &st) == 0, "'%s' not installed", installed[i]);
		if (strstr(installed[i], "/man/")) {
			char *a = e2e_slurp(path, NULL);
			char *b = e2e_slurp(page_path(strrchr(path, '/') + 1), NULL);

			ck_assert_uint_eq(st.st_mode & 0777, 0644);
			ck_assert_msg(!strcmp(a, b), "'%s' differs", installed[i]);
			free(a);
			free(b);
		}
	}
	e2e_release(&t);
}
END_TEST

/* `make help` forgot ccsg: every target of .PHONY has its line. */
START_TEST(test_make_help_lists_every_target)
{
	char path[PATH_MAX], *mk, *p, *lines[64];
	struct tool_out r;
	struct e2e t;
	size_t n, targets = 0;

	e2e_init(&t);
	r = run_make((const char *[]){ "help", NULL });
	e2e_assert_exit(r.status, 0, "make help");
	ck_assert_msg(has_word(r.out, "ccsg"), "make help: no ccsg");
	n = tool_lines(r.out, lines, 64);
	e2e_fmt(path, sizeof(path), "%s/Makefile", src_dir());
	mk = e2e_slurp(path, NULL);
	for (p = mk; (p = strstr(p, "\n.PHONY:")); ) {
		p += 8;
		while (*p && *p != '\n') {
			char name[64];
			int len = 0, found = 0;

			if (sscanf(p, " %63[a-z0-9_-]%n", name, &len) != 1)
				break;
			p += len;
			for (size_t i = 0; i < n && !found; i++)
				found = !strncmp(lines[i], "  ", 2) &&
					!strncmp(lines[i] + 2, name, strlen(name)) &&
					lines[i][2 + strlen(name)] == ' ';
			ck_assert_msg(found, "make help: no line for '%s'", name);
			targets++;
		}
	}
	ck_assert_msg(targets >= 8, "only %zu .PHONY targets found", targets);
	free(mk);
	tool_out_release(&r);
	e2e_release(&t);
}
END_TEST

/* The source file name (under CAUSAL_SRC), NUL-terminated (malloc'd). */
static char *src_text(const char *name)
{
	char path[PATH_MAX];

	e2e_fmt(path, sizeof(path), "%s/%s", src_dir(), name);
	return e2e_slurp(path, NULL);
}

START_TEST(test_readme_is_short)
{
	char *readme = src_text("README.md");
	size_t lines = 0;

	for (const char *p = readme; *p; p++)
		lines += *p == '\n';
	ck_assert_msg(lines <= 300,
		      "README.md has %zu lines: more than 300 "
		      "(the rest goes to docs/)",
		      lines);
	free(readme);
}
END_TEST

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The markdown files of docs/, sorted: "docs/NAME.md" each (malloc'd). */
static size_t doc_files(char *names[], size_t max)
{
	char path[PATH_MAX];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	e2e_fmt(path, sizeof(path), "%s/docs", src_dir());
	d = opendir(path);
	ck_assert_msg(d != NULL, "cannot open '%s'", path);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len > 3 && !strcmp(e->d_name + len - 3, ".md") && n < max) {
			char *name = malloc(len + 6);

			ck_assert(name != NULL);
			snprintf(name, len + 6, "docs/%s", e->d_name);
			names[n++] = name;
		}
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), name_cmp);
	return n;
}

START_TEST(test_docs_index_lists_every_doc)
{
	char *names[64], *index = src_text("docs/README.md"), link[80];
	size_t n = doc_files(names, 64);

	ck_assert_uint_ge(n, 10);
	for (size_t i = 0; i < n; i++) {
		e2e_fmt(link, sizeof(link), "](%s)",
			names[i] + strlen("docs/"));
		if (strcmp(names[i], "docs/README.md"))
			ck_assert_msg(strstr(index, link),
				      "docs/README.md does not link %s",
				      names[i]);
		free(names[i]);
	}
	free(index);
}
END_TEST

/* A paragraph of prose or a code block of a markdown file. */
struct para {
	char *text; /* its words, one space apart (malloc'd) */
	const char *file;
	int line;
};

static int para_cmp(const void *a, const void *b)
{
	return strcmp(((const struct para *)a)->text,
		      ((const struct para *)b)->text);
}

/*
 * Append the paragraphs of text (of file) to p: prose is cut at blank
 * lines, headings, tables, fences and list items; a code block is one.
 * Short ones are left out (a "see also" line may well repeat).
 */
static size_t paragraphs(const char *text, const char *file, struct para *p,
			 size_t n, size_t max)
{
	const char *line = text;
	char *cur = NULL;
	size_t len = 0;
	int code = 0, start = 0, lineno = 1;

	for (;;) {
		const char *end = strchrnul(line, '\n');
		const char *t = line + strspn(line, " ");
		int fence = !strncmp(t, "```", 3);
		int blank = t == end;
		int cut = blank || fence ||
			  (!code &&
			   (*t == '#' || *t == '|' || !strncmp(t, "* ", 2) ||
			    !strncmp(t, "- ", 2)));

		if (cut && cur) {
			while (len && cur[len - 1] == ' ')
				cur[--len] = '\0';
			if (len >= 100 && n < max)
				p[n++] = (struct para){ realloc(cur, len + 1),
							file, start };
			else
				free(cur);
			cur = NULL;
			len = 0;
		}
		if (fence)
			code = !code;
		else if (!blank && (code || (*t != '#' && *t != '|'))) {
			if (!cur) {
				cur = calloc(1, strlen(text) + 1);
				ck_assert(cur != NULL);
				start = lineno;
				if (*t == '*' || *t == '-')
					t += 2;
			}
			for (const char *c = t; c < end; c++)
				if (*c != ' ' || (len && cur[len - 1] != ' '))
					cur[len++] = *c;
			if (len && cur[len - 1] != ' ')
				cur[len++] = ' ';
		}
		if (!*end)
			break;
		line = end + 1;
		lineno++;
	}
	free(cur);
	return n;
}

START_TEST(test_no_paragraph_twice)
{
	static struct para p[8192];
	char *names[64], *texts[65];
	size_t nfiles = doc_files(names, 64), n = 0, dups = 0;

	texts[nfiles] = src_text("README.md");
	n = paragraphs(texts[nfiles], "README.md", p, n, 8192);
	for (size_t i = 0; i < nfiles; i++) {
		texts[i] = src_text(names[i]);
		n = paragraphs(texts[i], names[i], p, n, 8192);
	}
	ck_assert_uint_gt(n, 300);
	qsort(p, n, sizeof(p[0]), para_cmp);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(p[i - 1].text, p[i].text)) {
			fprintf(stderr,
				"docs: %s:%d and %s:%d: the same "
				"paragraph: %.100s...\n",
				p[i - 1].file, p[i - 1].line, p[i].file,
				p[i].line, p[i].text);
			dups++;
		}
	ck_assert_msg(!dups,
		      "%zu paragraphs written twice in README.md and "
		      "docs/ (listed above): keep each in one place",
		      dups);
	for (size_t i = 0; i < n; i++)
		free(p[i].text);
	for (size_t i = 0; i <= nfiles; i++)
		free(texts[i]);
	for (size_t i = 0; i < nfiles; i++)
		free(names[i]);
}
END_TEST

Suite *docs_suite(void)
{
	Suite *s = suite_create("docs");
	TCase *tc = tcase_create("docs");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_pages_render_without_warnings);
	tcase_add_test(tc, test_tool_pages_name_every_option);
	tcase_add_test(tc, test_libcausal_page_names_every_variable);
	tcase_add_test(tc, test_make_install_installs_the_pages);
	tcase_add_test(tc, test_make_help_lists_every_target);
	tcase_add_test(tc, test_readme_is_short);
	tcase_add_test(tc, test_docs_index_lists_every_doc);
	tcase_add_test(tc, test_no_paragraph_twice);
	suite_add_tcase(s, tc);
	return s;
}
