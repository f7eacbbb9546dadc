/*
 * extra-record.h - one record type more, for the test runner
 * run-tests-extra alone: the Makefile force-includes this file (-include)
 * into each of its files, and nothing else of the tree names the type.
 * That runner's suites records and merge-dests then pass only if
 * everything generated from records.def - the type numbers and names,
 * the library's in-memory form and encoder, the tools' decoder,
 * `tracedump dump` in text and JSON, the merge's dispatch, the tests'
 * log writer and their loops over the types - takes a new type from its
 * lines in records.def alone (docs/adding-a-record-type.md).
 *
 * TEST_EXTRA, number 13 (free), has LOCK's fields and goes to LOCK's
 * table by LOCK's store handler: store_lock() reads the decoded record's
 * union as r->lock, which the same fields lay out as r->test_extra.  A
 * type of its own would bring a handler of its own, which is the one
 * thing adding a type with a table writes by hand.
 */
#define CAUSAL_TEST_EXTRA_RECORD 1

/* clang-format off */
#define CAUSAL_RECORDS_TEST_HOOK(R)                                            \
	R(13, TEST_EXTRA, test_extra, test_extra, NONE, 3)
#define CAUSAL_FIELDS_TEST_EXTRA(F) CAUSAL_FIELDS_LOCK(F)
#define CAUSAL_RECORD_DESTS_TEST_HOOK(D)                                       \
	D(TEST_EXTRA, STORE, lock, TABLE(LOCK_EVENTS))
/* clang-format on */
