/*
 * cpu-clock.c - finding and mapping the bpf clock (cpu-clock.h).  Runs at
 * start-up and in a fork child, never on a probe: the read is inline in
 * the header.  No global state, so the suites test it directly.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu-clock.h"
#include "read-file.h"

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* "'PATH': WHAT[: strerror(err)]" into why; returns -err. */
static int say_why(char *why, size_t size, const char *path, const char *what,
		   int err, int show_err)
{
	if (size)
		snprintf(why, size, "'%s': %s%s%s", path, what,
			 what[0] && show_err ? ": " : "",
			 show_err ? strerror(err) : "");
	return -err;
}

/* The initial time namespace's inode (PROC_TIME_INIT_INO). */
#define TIME_NS_INIT_INO 0xeffffffau

/*
 * The slots hold the host's CLOCK_MONOTONIC; a process in a time
 * namespace reads its own, offset (CRIU restores, some containers).  Zero
 * offsets are harmless: /proc/self/timens_offsets shows those of the
 * namespace the process's children get, its own when they are the same.
 * 0 when this process's CLOCK_MONOTONIC is the host's, -EXDEV when it may
 * not be.
 */
static int same_monotonic(void)
{
	struct stat own, children;
	char buf[256], *line;
	ssize_t n;

	if (stat("/proc/self/ns/time", &own))
		return errno == ENOENT ? 0 : -errno; /* no time namespaces */
	if (own.st_ino == TIME_NS_INIT_INO)
		return 0;
	if (stat("/proc/self/ns/time_for_children", &children) ||
	    children.st_ino != own.st_ino)
		return -EXDEV;
	n = causal_file_read("/proc/self/timens_offsets", buf, sizeof(buf), 0);
	if (n <= 0)
		return -EXDEV;
	/* "monotonic           0         0" */
	line = strstr(buf, "monotonic");
	if (!line)
		return -EXDEV;
	line += strlen("monotonic");
	line += strspn(line, " \t");
	if (line[0] != '0' || !strchr(" \t", line[1]))
		return -EXDEV;
	line += 1 + strspn(line + 1, " \t");
	if (line[0] != '0' || !strchr("\n", line[1]))
		return -EXDEV;
	return 0;
}

/* This process's pid namespace, by the inode /proc shows for it. */
static int pid_ns(uint32_t *ns)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	*ns = (uint32_t)st.st_ino;
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Whether a program attached now keeps c's slots: this thread, switched
 * out and in again (a short sleep: some 60 us), must find that switch-in
 * in its slot.  A head that says LIVE proves nothing by itself: a clock
 * whose link was unpinned by hand (or whose loader died before `stop`)
 * keeps its map, pinned and LIVE, that nobody writes any more, and a map
 * written under another boot holds another boot's CLOCK_MONOTONIC.  A few
 * tries: the slot may hold another thread sharing it, or be in the middle
 * of a write.  0, or -ESTALE.
 */
static int updated_now(const struct causal_cpu_clock *c)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	const struct causal_bpf_clock_slot *s =
		&c->slots[causal_bpf_clock_index(c->ns, tid, c->mask)];

	for (int i = 0; i < CAUSAL_CPU_LIVE_TRIES; i++) {
		struct timespec nap = { 0, 1000 };
		uint64_t before = mono_ns(), after, at;
		uint32_t seq, stid, sns;

		nanosleep(&nap, NULL);
		seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		stid = __atomic_load_n(&s->tid, __ATOMIC_RELAXED);
		sns = __atomic_load_n(&s->ns, __ATOMIC_RELAXED);
		at = __atomic_load_n(&s->in_at, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		after = mono_ns(); /* the slot was read before */
		if (!(seq & 1) &&
		    __atomic_load_n(&s->seq, __ATOMIC_RELAXED) == seq &&
		    stid == tid && sns == c->ns && at >= before && at <= after)
			return 0;
	}
	return -ESTALE;
}

int causal_cpu_clock_open(struct causal_cpu_clock *c, const char *path,
			  char *why, size_t why_size)
{
	struct bpf_map_info info;
	const struct causal_bpf_clock_head *h;
	union bpf_attr attr;
	size_t len, page = (size_t)sysconf(_SC_PAGESIZE);
	uint32_t ns = 0, nslots;
	struct stat st;
	void *map;
	int fd, err;

	memset(c, 0, sizeof(*c));
	/* nothing there is the usual case: one stat, no bpf() */
	if (stat(path, &st))
		return say_why(why, why_size, path, "", errno, 1);
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uint64_t)(uintptr_t)path;
	/* read-write: the kernel maps a BPF map only through a descriptor
	 * open for writing, even read-only; the map is frozen, so neither
	 * this descriptor nor the mapping can change it */
	attr.file_flags = 0;
	fd = sys_bpf(BPF_OBJ_GET, &attr);
	if (fd < 0)
		return say_why(why, why_size, path, "cannot open it", errno, 1);
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uint64_t)(uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr)) {
		err = errno;
		close(fd);
		return say_why(why, why_size, path, "not a bpf map", err, 1);
	}
	nslots = info.max_entries - 1;
	if (info.type != BPF_MAP_TYPE_ARRAY || info.key_size != 4 ||
	    info.value_size != sizeof(struct causal_bpf_clock_slot) ||
	    !(info.map_flags & BPF_F_MMAPABLE) || info.max_entries < 2 ||
	    (nslots & (nslots - 1))) {
		close(fd);
		return say_why(why, why_size, path,
			       "not a bpf clock (another kind of map)", EINVAL,
			       0);
	}
	len = ((size_t)info.max_entries * sizeof(struct causal_bpf_clock_slot) +
	       page - 1) &
	      ~(page - 1);
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	err = errno;
	close(fd);
	if (map == MAP_FAILED)
		return say_why(why, why_size, path, "cannot map it", err, 1);
	h = map;
	if (h->magic != CAUSAL_BPF_CLOCK_MAGIC ||
	    h->version != CAUSAL_BPF_CLOCK_VERSION || h->nslots != nslots) {
		munmap(map, len);
		return say_why(why, why_size, path,
			       "not a bpf clock of this version", EPROTO, 0);
	}
	if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) !=
	    CAUSAL_BPF_CLOCK_LIVE) {
		munmap(map, len);
		return say_why(why, why_size, path, "the clock is stopped",
			       ESRCH, 0);
	}
	err = pid_ns(&ns);
	if (err) {
		munmap(map, len);
		return say_why(why, why_size, "/proc/self/ns/pid",
			       "cannot read it", -err, 1);
	}
	err = same_monotonic();
	if (err) {
		munmap(map, len);
		return say_why(why, why_size, path,
			       "this process's CLOCK_MONOTONIC is not the "
			       "host's (a time namespace)",
			       -err, 0);
	}
	c->slots = map;
	c->mask = nslots - 1;
	c->ns = ns;
	c->map_len = len;
	if (updated_now(c)) {
		causal_cpu_clock_close(c);
		return say_why(why, why_size, path,
			       "the clock is stale (no program keeps it: "
			       "restart it with causalctl bpf-clock start)",
			       ESTALE, 0);
	}
	return 0;
}

int causal_cpu_clock_after_fork(struct causal_cpu_clock *c)
{
	int err;

	if (!c->slots)
		return 0;
	err = pid_ns(&c->ns);
	if (!err)
		err = same_monotonic();
	if (err)
		causal_cpu_clock_close(c);
	return err;
}

void causal_cpu_clock_close(struct causal_cpu_clock *c)
{
	if (c->slots)
		munmap((void *)c->slots, c->map_len);
	memset(c, 0, sizeof(*c));
}
