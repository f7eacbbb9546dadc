/*
 * cpu-clock.c - finding and mapping the bpf clock (cpu-clock.h).  Runs at
 * start-up and in a fork child, never on a probe: the read is inline in
 * the header.  No global state, so the suites test it directly.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu-clock.h"

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

/* This process's pid namespace, by the inode /proc shows for it. */
static int pid_ns(uint32_t *ns)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	*ns = (uint32_t)st.st_ino;
	return 0;
}

int causal_cpu_clock_open(struct causal_cpu_clock *c, const char *path,
			  char *why, size_t why_size)
{
	struct bpf_map_info info;
	const struct causal_bpf_clock_head *h;
	union bpf_attr attr;
	size_t len, page = (size_t)sysconf(_SC_PAGESIZE);
	uint32_t ns, nslots;
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
		return say_why(why, why_size, path, "cannot open it", errno,
			       1);
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
	       page - 1) & ~(page - 1);
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
	c->slots = map;
	c->mask = nslots - 1;
	c->ns = ns;
	c->map_len = len;
	return 0;
}

int causal_cpu_clock_after_fork(struct causal_cpu_clock *c)
{
	int err;

	if (!c->slots)
		return 0;
	err = pid_ns(&c->ns);
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
