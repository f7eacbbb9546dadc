/*
 * bpf-clock.c - load, pin, stop and inspect the host's bpf clock
 * (bpf-clock.h), with libbpf and the skeleton bpftool makes of
 * bpf/bpf-clock.bpf.c at build time.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf-clock.h"
#include "bpf-clock.skel.h"
#include "causal/bpf-clock.h"
#include "usage.h"

#define BPF_ROOT "/sys/fs/bpf"

static int libbpf_verbose;

/* libbpf's own messages: its warnings with --verbose, else none (the
 * failure is said in one line of ours). */
static int CAUSAL_PRINTF(2, 0)
	libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!libbpf_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int pin_path(char *out, const char *dir, const char *name)
{
	if ((size_t)snprintf(out, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		return fail("path too long: '%s'", dir);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int on_bpffs(const char *path)
{
	struct statfs fs;

	return !statfs(path, &fs) && fs.f_type == BPF_FS_MAGIC;
}

/* The directory holding dir, into parent. */
static void parent_of(const char *dir, char *parent)
{
	char *slash;

	snprintf(parent, PATH_MAX, "%s", dir);
	slash = strrchr(parent, '/');
	if (slash == parent)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
}

/*
 * dir's parent must be on a bpf filesystem: mount one on /sys/fs/bpf
 * when that is the parent and nothing is mounted there (systemd does at
 * boot, a minimal system or a container may not); elsewhere say what to
 * do.
 */
static int ensure_bpffs(const char *dir)
{
	char parent[PATH_MAX];

	if (dir[0] != '/')
		return fail("'%s' is not an absolute path", dir);
	parent_of(dir, parent);
	if (on_bpffs(parent))
		return 0;
	if (strcmp(parent, BPF_ROOT))
		return fail("'%s' is not a directory on a bpf filesystem: pin "
			    "the clock under '%s' (the default is '%s')",
			    parent, BPF_ROOT, CAUSAL_BPF_CLOCK_DIR);
	if (mount("bpf", BPF_ROOT, "bpf", 0, NULL))
		return fail("no bpf filesystem on '%s' and cannot mount one: "
			    "%s (as root: mount -t bpf bpf %s)",
			    BPF_ROOT, strerror(errno), BPF_ROOT);
	printf("mounted a bpf filesystem on '%s'\n", BPF_ROOT);
	return 0;
}

static int set_state(int prog_fd, uint32_t state)
{
	struct causal_bpf_clock_set arg = { .state = state };
	LIBBPF_OPTS(bpf_test_run_opts, run, .ctx_in = &arg,
		    .ctx_size_in = sizeof(arg));
	int err = bpf_prog_test_run_opts(prog_fd, &run);

	if (err)
		return -errno;
	return run.retval ? -EINVAL : 0;
}

/* The head and the slots in use, through a read-only mapping. */
static int read_map(int fd, struct bpf_clock_info *info)
{
	struct bpf_map_info mi;
	uint32_t len = sizeof(mi);
	const struct causal_bpf_clock_slot *s;
	const struct causal_bpf_clock_head *h;
	size_t bytes;
	void *map;

	memset(&mi, 0, sizeof(mi));
	if (bpf_obj_get_info_by_fd(fd, &mi, &len))
		return fail("'%s' is not a bpf map: %s", info->map_path,
			    strerror(errno));
	if (mi.type != BPF_MAP_TYPE_ARRAY || mi.value_size != sizeof(*s) ||
	    mi.max_entries < 2)
		return fail("'%s' is not a bpf clock", info->map_path);
	info->map_id = mi.id;
	bytes = (size_t)mi.max_entries * sizeof(*s);
	map = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return fail("cannot map '%s': %s", info->map_path,
			    strerror(errno));
	h = map;
	s = map;
	if (h->magic != CAUSAL_BPF_CLOCK_MAGIC) {
		munmap(map, bytes);
		return fail("'%s' is not a bpf clock", info->map_path);
	}
	info->state = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE);
	info->nslots = mi.max_entries - 1;
	info->started_ns = h->started_ns;
	for (uint32_t i = 1; i < mi.max_entries; i++)
		info->used += s[i].tid != 0;
	munmap(map, bytes);
	return 0;
}

static void read_link(const char *dir, struct bpf_clock_info *info)
{
	char path[PATH_MAX];
	struct bpf_link_info li;
	uint32_t len = sizeof(li);
	int fd;

	if (pin_path(path, dir, "link"))
		return;
	fd = bpf_obj_get(path);
	if (fd < 0) {
		info->link = errno == ENOENT ? 0 : -errno;
		return;
	}
	info->link = 1;
	memset(&li, 0, sizeof(li));
	if (!bpf_obj_get_info_by_fd(fd, &li, &len)) {
		info->link_id = li.id;
		info->prog_id = li.prog_id;
	}
	close(fd);
}

int bpf_clock_status(const char *dir, struct bpf_clock_info *info)
{
	struct stat st;
	int fd, ret;

	memset(info, 0, sizeof(*info));
	info->now_ns = mono_ns();
	if (pin_path(info->map_path, dir, CAUSAL_BPF_CLOCK_MAP))
		return -1;
	if (stat(info->map_path, &st)) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return fail("cannot reach '%s': %s", info->map_path,
			    strerror(errno));
	}
	info->present = 1;
	info->mode = st.st_mode & 07777;
	/* read-write: a map is only mapped through a writable descriptor */
	fd = bpf_obj_get(info->map_path);
	if (fd < 0)
		return fail("cannot open '%s': %s", info->map_path,
			    strerror(errno));
	ret = read_map(fd, info);
	close(fd);
	if (!ret)
		read_link(dir, info);
	return ret;
}

/* Remove what a clock pinned in dir, each pin if there. */
static int unpin_all(const char *dir)
{
	static const char *const names[] = { "link", "set-state",
					     CAUSAL_BPF_CLOCK_MAP };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (pin_path(path, dir, names[i]))
			return -1;
		if (unlink(path) && errno != ENOENT)
			return fail("cannot remove '%s': %s", path,
				    strerror(errno));
	}
	if (rmdir(dir) && errno != ENOENT)
		return fail("cannot remove '%s': %s", dir, strerror(errno));
	return 0;
}

int bpf_clock_stop(const char *dir, int *was)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, err;

	*was = 0;
	if (stat(dir, &st)) {
		if (errno == ENOENT)
			return 0;
		return fail("cannot reach '%s': %s", dir, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode) || !on_bpffs(dir))
		return fail("'%s' is not a directory on a bpf filesystem", dir);
	/* STOPPED first: from then on no process takes a slot, so none
	 * reads one that the detached program no longer updates */
	if (pin_path(path, dir, "set-state"))
		return -1;
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		err = set_state(fd, CAUSAL_BPF_CLOCK_STOPPED);
		close(fd);
		if (err)
			return fail("cannot mark the clock in '%s' stopped: %s",
				    dir, strerror(-err));
		*was = 1;
	} else if (errno != ENOENT) {
		return fail("cannot open '%s': %s", path, strerror(errno));
	}
	/* the last reference to the link: the program is detached */
	return unpin_all(dir);
}

static int pin(int fd, const char *dir, const char *name, mode_t mode)
{
	char path[PATH_MAX];

	if (pin_path(path, dir, name))
		return -1;
	if (bpf_obj_pin(fd, path))
		return fail("cannot pin '%s': %s", path, strerror(errno));
	if (chmod(path, mode))
		return fail("cannot chmod '%s': %s", path, strerror(errno));
	return 0;
}

static int load(const char *dir)
{
	struct causal_bpf_clock *skel;
	int err = -1, map_fd, prog_fd;

	skel = causal_bpf_clock__open_and_load();
	if (!skel)
		return fail("cannot load the bpf clock: %s%s", strerror(errno),
			    errno == EPERM ? " (needs root: CAP_BPF and "
					     "CAP_PERFMON)"
					   : "");
	if (causal_bpf_clock__attach(skel)) {
		fail("cannot attach the bpf clock to sched_switch: %s",
		     strerror(errno));
		goto out;
	}
	map_fd = bpf_map__fd(skel->maps.clock);
	prog_fd = bpf_program__fd(skel->progs.causal_set_state);
	err = set_state(prog_fd, CAUSAL_BPF_CLOCK_LIVE);
	if (err) {
		fail("cannot start the bpf clock: %s", strerror(-err));
		goto out;
	}
	/* read-only for every process that opens it, the programs aside */
	if (bpf_map_freeze(map_fd)) {
		err = fail("cannot freeze the clock: %s", strerror(errno));
		goto out;
	}
	if (mkdir(dir, 0755) || chmod(dir, 0755)) {
		err = fail("cannot make '%s': %s", dir, strerror(errno));
		goto out;
	}
	/* the map last: a process that finds it finds a whole clock */
	err = pin(bpf_link__fd(skel->links.causal_on_switch), dir, "link",
		  0600);
	if (!err)
		err = pin(prog_fd, dir, "set-state", 0600);
	if (!err)
		err = pin(map_fd, dir, CAUSAL_BPF_CLOCK_MAP, 0666);
	if (err)
		unpin_all(dir);
out:
	/* the pin keeps the program attached */
	if (skel->links.causal_on_switch)
		bpf_link__disconnect(skel->links.causal_on_switch);
	causal_bpf_clock__destroy(skel);
	return err;
}

int bpf_clock_start(const char *dir, int verbose, int *already,
		    struct bpf_clock_info *info)
{
	int was;

	*already = 0;
	libbpf_verbose = verbose;
	libbpf_set_print(libbpf_print);
	if (ensure_bpffs(dir) || bpf_clock_status(dir, info))
		return -1;
	if (info->present && info->state == CAUSAL_BPF_CLOCK_LIVE &&
	    info->link == 1) {
		*already = 1;
		return 0;
	}
	/* a clock stopped half-way, or whose link was removed by hand */
	if (bpf_clock_stop(dir, &was))
		return -1;
	if (load(dir))
		return -1;
	return bpf_clock_status(dir, info);
}
