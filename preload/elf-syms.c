/*
 * elf-syms.c - functions by address or by name (elf-syms.h): the
 * file-backed mappings of /proc/self/maps, and in each file its program
 * headers (where its bytes are loaded) and its symbol table.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "elf-syms.h"

/* A file-backed mapping: [start, end) holds the file from offset on. */
struct mapping {
	uintptr_t start, end;
	uint64_t offset;
	int exec;
	char *path;
};

struct maps {
	struct mapping *v;
	size_t n, cap;
};

static void maps_free(struct maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
}

static int maps_add(struct maps *m, const struct mapping *map)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct mapping *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return -1;
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n] = *map;
	if (!(m->v[m->n].path = strdup(map->path)))
		return -1;
	m->n++;
	return 0;
}

/* Every mapping of a file that still exists, in address order. */
static int maps_read(struct maps *m)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	if (!f)
		return -1;
	while (!ret && getline(&line, &cap, f) > 0) {
		unsigned long start, end, off;
		char perms[8];
		int at = 0;
		struct mapping map;

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %n", &start, &end,
			   perms, &off, &at) < 4 ||
		    !at)
			continue;
		map.path = line + at;
		map.path[strcspn(map.path, "\n")] = '\0';
		/* anonymous, [stack], [vdso], or a file since removed */
		if (map.path[0] != '/' || strstr(map.path, " (deleted)"))
			continue;
		map.start = start;
		map.end = end;
		map.offset = off;
		map.exec = strchr(perms, 'x') != NULL;
		ret = maps_add(m, &map);
	}
	free(line);
	fclose(f);
	if (ret)
		maps_free(m);
	return ret;
}

/* ---- one ELF file ------------------------------------------------------- */

struct elf_file {
	int fd;
	Elf *elf;
};

static void elf_file_close(struct elf_file *ef)
{
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
}

static int elf_file_open(struct elf_file *ef, const char *path)
{
	ef->elf = NULL;
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (ef->elf && elf_kind(ef->elf) == ELF_K_ELF)
		return 0;
	elf_file_close(ef);
	return -1;
}

/* The loaded segment (PT_LOAD) holding x: a file offset (by_offset) or
 * an address of the file's own numbering; 0 and *seg, or -1. */
static int load_segment(Elf *e, uint64_t x, int by_offset, GElf_Phdr *seg)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint64_t from;

		if (!gelf_getphdr(e, (int)i, seg) || seg->p_type != PT_LOAD)
			continue;
		from = by_offset ? seg->p_offset : seg->p_vaddr;
		if (x >= from && x - from < seg->p_filesz)
			return 0;
	}
	return -1;
}

/* The symbol table: .symtab, else .dynsym (a stripped file has that). */
static Elf_Scn *symbol_table(Elf *e, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr dyn_sh;

	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		if (sh->sh_type == SHT_SYMTAB)
			return scn;
		if (sh->sh_type == SHT_DYNSYM) {
			dyn = scn;
			dyn_sh = *sh;
		}
	}
	if (dyn)
		*sh = dyn_sh;
	return dyn;
}

typedef int (*function_fn)(const char *name, const GElf_Sym *sym, void *arg);

/* Each function the file defines, with a size, to fn until it says 1. */
static void each_function(Elf *e, function_fn fn, void *arg)
{
	GElf_Shdr sh;
	Elf_Scn *scn = symbol_table(e, &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t n = data && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;

	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !s.st_size ||
		    s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(e, sh.sh_link, s.st_name);
		if (name && *name && fn(name, &s, arg))
			return;
	}
}

/* ---- by address --------------------------------------------------------- */

/* The addresses of one file, in its own numbering (vaddr), to name. */
struct at_search {
	size_t n;
	const size_t *which; /* their indexes in the caller's list */
	uint64_t *vaddr;
	const char *path;
	causal_elf_name_fn fn;
	void *arg;
	uint8_t *done;
};

static int covers(const char *name, const GElf_Sym *s, void *arg)
{
	struct at_search *a = arg;

	for (size_t k = 0; k < a->n; k++)
		if (!a->done[k] && a->vaddr[k] >= s->st_value &&
		    a->vaddr[k] - s->st_value < s->st_size) {
			a->fn(a->which[k], name, a->path, a->arg);
			a->done[k] = 1;
		}
	return 0;
}

/* The addresses of list[] that map[] holds (hit[k] == map), named. */
static void name_in_file(const struct maps *m, size_t map,
			 const uintptr_t *addr, const size_t *hit, size_t n,
			 causal_elf_name_fn fn, void *arg)
{
	size_t *which = calloc(n, sizeof(*which));
	uint64_t *vaddr = calloc(n, sizeof(*vaddr));
	uint8_t *done = calloc(n, 1);
	struct at_search a = { 0, which, vaddr, m->v[map].path, fn, arg, done };
	struct elf_file ef;
	int open = 0;

	if (which && vaddr && done)
		open = !elf_file_open(&ef, m->v[map].path);
	for (size_t i = 0; i < n; i++) {
		const struct mapping *h;
		GElf_Phdr seg;
		uint64_t off;

		if (hit[i] == SIZE_MAX || strcmp(m->v[hit[i]].path, a.path))
			continue;
		h = &m->v[hit[i]];
		off = addr[i] - h->start + h->offset;
		if (open && !load_segment(ef.elf, off, 1, &seg)) {
			which[a.n] = i;
			vaddr[a.n++] = seg.p_vaddr + (off - seg.p_offset);
		} else {
			fn(i, "", a.path, arg); /* in the file, no function */
		}
	}
	if (open) {
		each_function(ef.elf, covers, &a);
		elf_file_close(&ef);
	}
	for (size_t k = 0; k < a.n; k++)
		if (!done[k])
			fn(which[k], "", a.path, arg);
	free(which);
	free(vaddr);
	free(done);
}

void causal_elf_name_all(const uintptr_t *addr, size_t n, causal_elf_name_fn fn,
			 void *arg)
{
	size_t *hit = calloc(n ? n : 1, sizeof(*hit));
	struct maps m;

	if (!hit || maps_read(&m)) {
		for (size_t i = 0; i < n; i++)
			fn(i, NULL, NULL, arg);
		free(hit);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		hit[i] = SIZE_MAX;
		for (size_t k = 0; k < m.n && hit[i] == SIZE_MAX; k++)
			if (addr[i] >= m.v[k].start && addr[i] < m.v[k].end)
				hit[i] = k;
		if (hit[i] == SIZE_MAX)
			fn(i, NULL, NULL, arg); /* in no file */
	}
	/* each file once, at the first address in it */
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (hit[i] == SIZE_MAX)
			continue;
		for (k = 0; k < i; k++)
			if (hit[k] != SIZE_MAX &&
			    !strcmp(m.v[hit[k]].path, m.v[hit[i]].path))
				break;
		if (k == i)
			name_in_file(&m, hit[i], addr, hit, n, fn, arg);
	}
	maps_free(&m);
	free(hit);
}

struct one_name {
	char *symbol, *path;
	size_t symbol_size, path_size;
	int found;
};

static void one(size_t i, const char *symbol, const char *path, void *arg)
{
	struct one_name *o = arg;

	(void)i;
	if (!path)
		return;
	snprintf(o->symbol, o->symbol_size, "%s", symbol);
	snprintf(o->path, o->path_size, "%s", path);
	o->found = 1;
}

int causal_elf_function_at(uintptr_t addr, char *symbol, size_t symbol_size,
			   char *path, size_t path_size)
{
	struct one_name o = { symbol, path, symbol_size, path_size, 0 };

	symbol[0] = path[0] = '\0';
	causal_elf_name_all(&addr, 1, one, &o);
	return o.found ? 0 : -1;
}

/* ---- by name ------------------------------------------------------------ */

size_t causal_stub_name_len(const char *symbol)
{
	size_t len = strlen(symbol), end = len;

	while (end && symbol[end - 1] >= '0' && symbol[end - 1] <= '9')
		end--;
	return end > 1 && end < len && symbol[end - 1] == '_' ? end - 1 : len;
}

struct named_search {
	const char *name;
	size_t len;
	Elf *elf;
	const struct maps *m;
	const char *path; /* the file whose symbols these are */
	struct causal_addr_range *out;
	size_t max, n;
};

/* A function of that name: where its file's mapping puts it. */
static int named(const char *name, const GElf_Sym *s, void *arg)
{
	struct named_search *q = arg;
	GElf_Phdr seg;
	uint64_t off;

	if (causal_stub_name_len(name) != q->len ||
	    strncasecmp(name, q->name, q->len) ||
	    load_segment(q->elf, s->st_value, 0, &seg))
		return 0;
	off = seg.p_offset + (s->st_value - seg.p_vaddr);
	for (size_t i = 0; i < q->m->n; i++) {
		const struct mapping *map = &q->m->v[i];

		if (off < map->offset ||
		    off - map->offset >= map->end - map->start ||
		    strcmp(map->path, q->path))
			continue;
		if (q->n < q->max) {
			q->out[q->n].lo = map->start + (off - map->offset);
			q->out[q->n].hi = q->out[q->n].lo + s->st_size;
		}
		q->n++;
		break;
	}
	return 0;
}

/* Is m->v[i] the first executable mapping of its file? */
static int first_code_of_file(const struct maps *m, size_t i)
{
	if (!m->v[i].exec)
		return 0;
	for (size_t k = 0; k < i; k++)
		if (m->v[k].exec && !strcmp(m->v[k].path, m->v[i].path))
			return 0;
	return 1;
}

size_t causal_elf_functions_named(const char *name,
				  struct causal_addr_range *out, size_t max)
{
	struct named_search q = { name, strlen(name), NULL, NULL,
				  NULL, out,	      max,  0 };
	struct maps m;

	if (!q.len || maps_read(&m))
		return 0;
	q.m = &m;
	for (size_t i = 0; i < m.n; i++) {
		struct elf_file ef;

		if (!first_code_of_file(&m, i) ||
		    elf_file_open(&ef, m.v[i].path))
			continue;
		q.elf = ef.elf;
		q.path = m.v[i].path;
		each_function(ef.elf, named, &q);
		elf_file_close(&ef);
	}
	maps_free(&m);
	return q.n;
}
