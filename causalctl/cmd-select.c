/*
 * cmd-select.c - `causalctl select HOST INTERFACE FUNCTION on|off`:
 * publish a component selection to every process, through the
 * coordinator.  Program names (and, within a named program, procedure
 * names) from .x files or /etc/rpc become numbers here, so the traced
 * processes only ever match numbers and stub names.
 */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "coordinator.h"
#include "idl.h"
#include "usage.h"

static const struct opt select_opts[] = {
	{ "coordinator", 'c', "WHERE",
	  "the coordinator: local, a socket path or HOST[:PORT] (default "
	  "$CAUSAL_COORDINATOR, else local)" },
	{ "idl", 'i', "FILE.x",
	  "program and procedure names from an rpcgen file (repeatable)" },
	OPT_END
};

/*
 * INTERFACE by name -> its number into iface; FUNCTION by a name of that
 * program's procedures (the same number in every version) -> its number
 * into func.  Any other function name stays a name (the stubs match it).
 */
static int resolve(const struct idl_names *nm, const char *iname,
		   const char *fname, char *iface, size_t ilen, char *func,
		   size_t flen)
{
	const struct idl_proc *found[16];
	uint32_t prog = 0;
	size_t n;

	snprintf(iface, ilen, "%s", iname);
	snprintf(func, flen, "%s", fname);
	if (!strcmp(iname, "*") || coord_is_number(iname))
		return 0;
	if (idl_names_find_prog(nm, iname, &prog)) {
		fail("unknown interface '%s': not a program of the .x files "
		     "given (--idl) nor of /etc/rpc",
		     iname);
		return -1;
	}
	snprintf(iface, ilen, "%#x", prog);
	if (!strcmp(fname, "*") || coord_is_number(fname))
		return 0;
	n = idl_names_find_proc(nm, fname, 0, prog, found, 16);
	if (n > 0 && n <= 16) {
		for (size_t i = 1; i < n; i++)
			if (found[i]->proc != found[0]->proc)
				return 0; /* versions disagree: the stubs */
		snprintf(func, flen, "%u", found[0]->proc);
	}
	return 0;
}

static int run_select(int argc, char **argv)
{
	const char *where = NULL, *v;
	struct idl_names nm;
	struct opt_parser p;
	char what[400], iface[32], func[64];
	int c, ret = 2;

	idl_names_init(&nm);
	opt_init(&p, &cmd_select, argc, argv);
	while ((c = opt_next(&p, &v)) > 0)
		if (c == 'c')
			where = v;
		else if (c == 'i' && idl_names_load(&nm, v))
			goto out;
	if (c == OPT_STOP) {
		ret = p.status;
		goto out;
	}
	if (p.nargs != 4) {
		fail("expected HOST INTERFACE FUNCTION on|off, got %d "
		     "argument%s",
		     p.nargs, p.nargs == 1 ? "" : "s");
		goto out;
	}
	idl_names_load_rpc(&nm, "/etc/rpc");
	if (resolve(&nm, p.args[1], p.args[2], iface, sizeof(iface), func,
		    sizeof(func)) ||
	    coord_selection(p.args[0], iface, func, p.args[3]))
		goto out;
	where = ctl_coordinator(where);
	snprintf(what, sizeof(what), "select %s %s %s %s", p.args[0], iface,
		 func, p.args[3]);
	ret = ctl_publish(where, what);
out:
	idl_names_release(&nm);
	return ret;
}

const struct command cmd_select = {
	"select", run_select,
	"HOST INTERFACE FUNCTION on|off [--idl FILE.x]... "
	"[--coordinator WHERE]",
	"monitor the calls of a component or not: the host calls are made "
	"from, the program (a number, a name from the .x files or /etc/rpc, "
	"or *) and procedure (a number, a name, or *)",
	select_opts
};
