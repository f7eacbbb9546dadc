/*
 * check-monitor-auth.c - the monitoring channel over TCP
 * (util/monitor-auth.c): the key file's checks, the challenge, and sealed
 * lines that do not check once forged, replayed, reordered, reflected or
 * carried to another connection.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "causal/monitor-auth.h"
#include "causal/monitor-proto.h"
#include "test-tmp.h"

static char dir[4096];

static void make_dir(void)
{
	test_tmp_name(dir, sizeof(dir), "causal-auth-XXXXXX");
	ck_assert(mkdtemp(dir));
}

static void remove_dir(void)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/* dir/name holding text, with mode. */
static const char *key_file(const char *name, const char *text, mode_t mode)
{
	static char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert(fd >= 0);
	ck_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	ck_assert_int_eq(chmod(path, mode), 0);
	return path;
}

static const char secret[] = "a key of thirty-two bytes or so.";

/* Both sides of one connection, the challenge answered and checked. */
static void pair(struct causal_mon_key *kc, struct causal_mon_key *ks,
		 struct causal_mon_auth *c, struct causal_mon_auth *s)
{
	char line[CAUSAL_MON_LINE_MAX], out[CAUSAL_MON_WIRE_MAX + 2], *rest;

	ck_assert_int_eq(causal_mon_auth_client(c, kc, line, sizeof(line)), 0);
	ck_assert_int_eq(strncmp(line, "AUTH 2 ", 7), 0);
	ck_assert_int_eq(strlen(line), 7 + 2 * CAUSAL_MON_NONCE);
	ck_assert_str_eq(causal_mon_kind(line, &rest), "AUTH");
	ck_assert_int_eq(causal_mon_auth_server(s, ks, rest, out, sizeof(out)),
			 0);
	out[strcspn(out, "\n")] = '\0';
	ck_assert_int_eq(causal_mon_auth_check(c, out), 0);
}

static void load(struct causal_mon_key *k, const char *text)
{
	char why[160];

	ck_assert_int_eq(causal_mon_key_load(key_file("k", text, 0600), k, why,
					     sizeof(why)),
			 0);
}

START_TEST(test_key_file_checks)
{
	struct causal_mon_key k;
	char why[160], path[4200];

	make_dir();
	load(&k, secret);
	/* readable by the group or others: refused, said how to fix */
	ck_assert_int_eq(causal_mon_key_load(key_file("g", secret, 0640), &k,
					     why, sizeof(why)),
			 -1);
	ck_assert_msg(strstr(why, "chmod 600"), "%s", why);
	ck_assert_int_eq(causal_mon_key_load(key_file("o", secret, 0604), &k,
					     why, sizeof(why)),
			 -1);
	/* too short */
	ck_assert_int_eq(causal_mon_key_load(key_file("s", "short", 0600), &k,
					     why, sizeof(why)),
			 -1);
	ck_assert_msg(strstr(why, "16 to 4096 bytes"), "%s", why);
	/* a link is not followed, a FIFO not waited on, a directory not read */
	snprintf(path, sizeof(path), "%s/link", dir);
	ck_assert_int_eq(symlink(key_file("k", secret, 0600), path), 0);
	ck_assert_int_eq(causal_mon_key_load(path, &k, why, sizeof(why)), -1);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(causal_mon_key_load(path, &k, why, sizeof(why)), -1);
	ck_assert_str_eq(why, "not a regular file");
	ck_assert_int_eq(causal_mon_key_load(dir, &k, why, sizeof(why)), -1);
	snprintf(path, sizeof(path), "%s/none", dir);
	ck_assert_int_eq(causal_mon_key_load(path, &k, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "cannot open it"), "%s", why);
	/* another user's file, readable by root: not this user's key */
	if (geteuid() == 0) {
		ck_assert_int_eq(
			chown(key_file("n", secret, 0600), 65534, 65534), 0);
		snprintf(path, sizeof(path), "%s/n", dir);
		ck_assert_int_eq(
			causal_mon_key_load(path, &k, why, sizeof(why)), -1);
		ck_assert_str_eq(why, "owned by another user");
	}
	remove_dir();
}
END_TEST

START_TEST(test_sealed_both_ways)
{
	struct causal_mon_key kc, ks;
	struct causal_mon_auth c, s;
	char line[CAUSAL_MON_WIRE_MAX + 2];

	make_dir();
	load(&kc, secret);
	load(&ks, secret);
	pair(&kc, &ks, &c, &s);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(causal_mon_seal(&c, "PUBLISH on cpu", line,
						 sizeof(line)),
				 0);
		ck_assert_int_eq(line[CAUSAL_MON_MAC_HEX], ' ');
		line[strcspn(line, "\n")] = '\0';
		ck_assert_str_eq(causal_mon_open(&s, line), "PUBLISH on cpu");
		ck_assert_int_eq(
			causal_mon_seal(&s, "OK 1", line, sizeof(line)), 0);
		line[strcspn(line, "\n")] = '\0';
		ck_assert_str_eq(causal_mon_open(&c, line), "OK 1");
	}
	remove_dir();
}
END_TEST

START_TEST(test_forged_replayed_reflected)
{
	struct causal_mon_key kc, ks;
	struct causal_mon_auth c, s, c2, s2;
	char line[CAUSAL_MON_WIRE_MAX + 2], copy[sizeof(line)],
		again[sizeof(line)];

	make_dir();
	load(&kc, secret);
	load(&ks, secret);
	pair(&kc, &ks, &c, &s);
	ck_assert_int_eq(
		causal_mon_seal(&c, "PUBLISH off cpu", line, sizeof(line)), 0);
	line[strcspn(line, "\n")] = '\0';
	memcpy(copy, line, sizeof(line));
	memcpy(again, line, sizeof(line));
	/* one byte of the message changed */
	copy[CAUSAL_MON_MAC_HEX + 10] = 'n';
	ck_assert_ptr_null(causal_mon_open(&s, copy));
	/* reflected back to its sender */
	memcpy(copy, line, sizeof(line));
	ck_assert_ptr_null(causal_mon_open(&c, copy));
	/* no MAC, a bad one, a MAC of upper-case hex */
	ck_assert_ptr_null(causal_mon_open(&s, (char[]){ "PUBLISH off cpu" }));
	memcpy(copy, line, sizeof(line));
	copy[0] = copy[0] == 'a' ? 'b' : 'a';
	ck_assert_ptr_null(causal_mon_open(&s, copy));
	/* the right one, once; replayed, it is out of place */
	ck_assert_str_eq(causal_mon_open(&s, line), "PUBLISH off cpu");
	ck_assert_ptr_null(causal_mon_open(&s, again));
	/* recorded, then sent on another connection: other nonces */
	pair(&kc, &ks, &c2, &s2);
	memcpy(copy, again, sizeof(line));
	ck_assert_ptr_null(causal_mon_open(&s2, copy));
	remove_dir();
}
END_TEST

/* The client checks the coordinator before it says anything: another
 * key, a replayed answer, a bare one do not pass. */
START_TEST(test_coordinator_proves_the_key)
{
	struct causal_mon_key kc, kother;
	struct causal_mon_auth c, s, c2;
	char line[CAUSAL_MON_LINE_MAX], out[CAUSAL_MON_WIRE_MAX + 2],
		copy[sizeof(out)], *rest;

	make_dir();
	load(&kc, secret);
	load(&kother, "another key, just as long as it.");
	ck_assert_int_eq(causal_mon_auth_client(&c, &kc, line, sizeof(line)),
			 0);
	causal_mon_kind(line, &rest);
	ck_assert_int_eq(
		causal_mon_auth_server(&s, &kother, rest, out, sizeof(out)), 0);
	out[strcspn(out, "\n")] = '\0';
	ck_assert_int_eq(causal_mon_auth_check(&c, out), -1);
	/* the right key's answer to one challenge, for another */
	ck_assert_int_eq(causal_mon_auth_client(&c, &kc, line, sizeof(line)),
			 0);
	causal_mon_kind(line, &rest);
	ck_assert_int_eq(
		causal_mon_auth_server(&s, &kc, rest, out, sizeof(out)), 0);
	out[strcspn(out, "\n")] = '\0';
	ck_assert_int_eq(causal_mon_auth_client(&c2, &kc, line, sizeof(line)),
			 0);
	memcpy(copy, out, sizeof(out));
	ck_assert_int_eq(causal_mon_auth_check(&c2, copy), -1);
	ck_assert_int_eq(causal_mon_auth_check(&c, out), 0);
	/* not sealed at all; an old coordinator's WELCOME */
	ck_assert_int_eq(causal_mon_auth_check(&c2, (char[]){ "AUTH 2 00" }),
			 -1);
	ck_assert_int_eq(causal_mon_auth_check(&c2, (char[]){ "WELCOME 1 ab" }),
			 -1);
	/* a client that is not one of ours: no challenge answered */
	ck_assert_int_eq(causal_mon_auth_server(&s, &kc, (char[]){ "1 00" },
						out, sizeof(out)),
			 -1);
	ck_assert_int_eq(causal_mon_auth_server(&s, &kc,
						(char[]){ "2 not-hex" }, out,
						sizeof(out)),
			 -1);
	remove_dir();
}
END_TEST

Suite *monitor_auth_suite(void)
{
	Suite *s = suite_create("monitor-auth");
	TCase *tc = tcase_create("monitor-auth");

	tcase_add_test(tc, test_key_file_checks);
	tcase_add_test(tc, test_sealed_both_ways);
	tcase_add_test(tc, test_forged_replayed_reflected);
	tcase_add_test(tc, test_coordinator_proves_the_key);
	suite_add_tcase(s, tc);
	return s;
}
