// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the command-language unit (src/parse.c): every type
 * (user_events.rst, Field Format) with its size, signedness and print format;
 * rejected forms; array sizes at and past the limits; field layout and
 * min_size; print fmt strings; the matching rules of upstream's
 * user_fields_match(); name splitting; and the __data_loc/__rel_loc
 * validators (upstream's user_event_validate()). Each case asserts exact
 * results.
 *
 * The parser is compiled into this test module, so it is tested on its own,
 * without the tracing core.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../../src/parse.c"
#include "../../src/ue.h"

/* A copy of @s that KUnit frees after the test. */
static char *dup(struct kunit *test, const char *s)
{
	return kunit_kstrdup(test, s, GFP_KERNEL);
}

/* Parse @text (a field list) in a buffer the test owns. */
static int parse(struct kunit *test, const char *text, struct ue_fields *f)
{
	char *buf = dup(test, text);
	int ret;

	memset(f, 0, sizeof(*f));
	ret = ue_fields_parse(buf, f, NULL);
	return ret;
}

/* --- one field of every type ------------------------------------------- */

struct type_case {
	const char	*text;
	u32		size;
	u8		is_signed;
	u32		array_len;
	u8		loc;
	bool		is_string;
	const char	*print_fmt;
};

static const struct type_case type_cases[] = {
	{ "s64 a", 8, 1, 0, 0, false, "\"a=%lld\", REC->a" },
	{ "u64 a", 8, 0, 0, 0, false, "\"a=%llu\", REC->a" },
	{ "s32 a", 4, 1, 0, 0, false, "\"a=%d\", REC->a" },
	{ "u32 a", 4, 0, 0, 0, false, "\"a=%u\", REC->a" },
	{ "int a", 4, 1, 0, 0, false, "\"a=%d\", REC->a" },
	{ "unsigned int a", 4, 0, 0, 0, false, "\"a=%u\", REC->a" },
	{ "s16 a", 2, 1, 0, 0, false, "\"a=%d\", REC->a" },
	{ "u16 a", 2, 0, 0, 0, false, "\"a=%u\", REC->a" },
	{ "short a", 2, 1, 0, 0, false, "\"a=%d\", REC->a" },
	{ "unsigned short a", 2, 0, 0, 0, false, "\"a=%u\", REC->a" },
	{ "s8 a", 1, 1, 0, 0, false, "\"a=%d\", REC->a" },
	{ "u8 a", 1, 0, 0, 0, false, "\"a=%u\", REC->a" },
	{ "char a", 1, 1, 0, 0, false, "\"a=%d\", REC->a" },
	{ "unsigned char a", 1, 0, 0, 0, false, "\"a=%u\", REC->a" },
	{ "char[20] a", 20, 1, 20, 0, false, "\"a=%s\", REC->a" },
	{ "unsigned char[20] a", 20, 0, 20, 0, false, "\"a=%s\", REC->a" },
	{ "char[0x14] a", 20, 1, 20, 0, false, "\"a=%s\", REC->a" },
	{ "unsigned char[0x14] a", 20, 0, 20, 0, false, "\"a=%s\", REC->a" },
	{ "char[024] a", 20, 1, 20, 0, false, "\"a=%s\", REC->a" },
	{ "char[1] a", 1, 1, 1, 0, false, "\"a=%s\", REC->a" },
	{ "char[1024] a", 1024, 1, 1024, 0, false, "\"a=%s\", REC->a" },
	{ "char[0x400] a", 1024, 1, 1024, 0, false, "\"a=%s\", REC->a" },
	{ "char[000001] a", 1, 1, 1, 0, false, "\"a=%s\", REC->a" },
	{ "__data_loc char[] a", 4, 1, 0, UE_LOC_DATA, true,
	  "\"a=%s\", __get_str(a)" },
	{ "__data_loc unsigned char[] a", 4, 1, 0, UE_LOC_DATA, true,
	  "\"a=%s\", __get_str(a)" },
	{ "__rel_loc char[] a", 4, 1, 0, UE_LOC_REL, true,
	  "\"a=%s\", __get_rel_str(a)" },
	{ "__rel_loc unsigned char[] a", 4, 1, 0, UE_LOC_REL, true,
	  "\"a=%s\", __get_rel_str(a)" },
	{ "__data_loc u32[] a", 4, 1, 0, UE_LOC_DATA, false,
	  "\"a=%llu\", REC->a" },
	{ "__rel_loc u8[] a", 4, 1, 0, UE_LOC_REL, false,
	  "\"a=%llu\", REC->a" },
	{ "struct foo a 12", 12, 1, 0, 0, false, "\"a=%llu\", REC->a" },
	{ "struct foo a 1", 1, 1, 0, 0, false, "\"a=%llu\", REC->a" },
	{ "struct foo a 4096", 4096, 1, 0, 0, false, "\"a=%llu\", REC->a" },
};

static void type_case_desc(const struct type_case *c, char *desc)
{
	strscpy(desc, c->text, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(type, type_cases, type_case_desc);

static void ue_test_type(struct kunit *test)
{
	const struct type_case *c = test->param_value;
	struct ue_field *fl;
	struct ue_fields f;
	char *fmt;

	KUNIT_ASSERT_EQ(test, parse(test, c->text, &f), 0);
	KUNIT_ASSERT_EQ(test, f.nr, 1U);
	fl = &f.field[0];
	KUNIT_EXPECT_EQ(test, fl->offset, 8U);
	KUNIT_EXPECT_EQ(test, fl->size, c->size);
	KUNIT_EXPECT_EQ(test, fl->is_signed, c->is_signed);
	KUNIT_EXPECT_EQ(test, fl->array_len, c->array_len);
	KUNIT_EXPECT_EQ(test, fl->loc, c->loc);
	KUNIT_EXPECT_EQ(test, fl->is_string, c->is_string);
	KUNIT_EXPECT_STREQ(test, fl->name, "a");
	KUNIT_EXPECT_EQ(test, f.min_size, c->size);
	KUNIT_EXPECT_EQ(test, f.nr_validators, c->loc ? 1U : 0U);
	fmt = ue_print_fmt(&f, GFP_KERNEL, NULL);
	KUNIT_ASSERT_NOT_NULL(test, fmt);
	KUNIT_EXPECT_STREQ(test, fmt, c->print_fmt);
	kfree(fmt);
	ue_fields_free(&f);
}

/* --- rejected forms ------------------------------------------------------ */

static const char *const bad_cases[] = {
	"long a", "unsigned long a", "bool a", "pid_t a", "size_t a",
	"float a", "u32", "u32 a 4", "u32  a", "u32 a ", "u32 a ;u32 b",
	"u32 a b c", "char[] a", "char[0] a", "char[0x0] a", "char[1025] a",
	"char[0x401] a", "char[9999] a", "char[aa] a", "char[-1] a",
	"char[0x0000000000001] a", "char[0000001] a", "char[20 a",
	"u32[4] a", "struct foo a", "struct foo a 0", "struct foo a 0x10",
	"struct foo a -1", "struct foo a 2147483648", "struct foo",
	"unsigned a", "unsigned", "__data_loc", "__rel_loc", "x y",
	"char a 20", "u32\ta", "u32 a;char[2000] b", "u32 a;long b",
};

static void bad_case_desc(const char *const *c, char *desc)
{
	strscpy(desc, *c, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad, bad_cases, bad_case_desc);

static void ue_test_rejected(struct kunit *test)
{
	const char *const *c = test->param_value;
	struct ue_fields f;

	KUNIT_EXPECT_EQ(test, parse(test, *c, &f), -EINVAL);
}

/* --- layout, whitespace, print fmt --------------------------------------- */

static void ue_test_layout(struct kunit *test)
{
	struct ue_fields f;

	KUNIT_ASSERT_EQ(test, parse(test, "u8 a;u32 b;char[3] c;__rel_loc char[] d;u64 e", &f), 0);
	KUNIT_ASSERT_EQ(test, f.nr, 5U);
	KUNIT_EXPECT_EQ(test, f.field[0].offset, 8U);
	KUNIT_EXPECT_EQ(test, f.field[1].offset, 9U);
	KUNIT_EXPECT_EQ(test, f.field[2].offset, 13U);
	KUNIT_EXPECT_EQ(test, f.field[3].offset, 16U);
	KUNIT_EXPECT_EQ(test, f.field[4].offset, 20U);
	KUNIT_EXPECT_EQ(test, f.min_size, 20U);
	KUNIT_ASSERT_EQ(test, f.nr_validators, 1U);
	KUNIT_EXPECT_EQ(test, f.validator[0].offset, 16U);
	KUNIT_EXPECT_EQ(test, f.validator[0].loc, UE_LOC_REL);
	KUNIT_EXPECT_TRUE(test, f.validator[0].needs_nul);
	ue_fields_free(&f);
}

static void ue_test_no_fields(struct kunit *test)
{
	struct ue_fields f = {};
	char *fmt;

	KUNIT_ASSERT_EQ(test, ue_fields_parse(NULL, &f, NULL), 0);
	KUNIT_EXPECT_EQ(test, f.nr, 0U);
	KUNIT_EXPECT_EQ(test, f.min_size, 0U);
	fmt = ue_print_fmt(&f, GFP_KERNEL, NULL);
	KUNIT_ASSERT_NOT_NULL(test, fmt);
	KUNIT_EXPECT_STREQ(test, fmt, "\"\"");
	kfree(fmt);
	ue_fields_free(&f);
}

static void ue_test_whitespace(struct kunit *test)
{
	struct ue_fields f;

	/* Leading white space of a field is skipped; empty fields too. */
	KUNIT_ASSERT_EQ(test, parse(test, " \tu32 a;;  u8 b;", &f), 0);
	KUNIT_EXPECT_EQ(test, f.nr, 2U);
	KUNIT_EXPECT_STREQ(test, f.field[0].type, "u32");
	KUNIT_EXPECT_STREQ(test, f.field[1].name, "b");
	KUNIT_EXPECT_EQ(test, f.min_size, 5U);
	ue_fields_free(&f);
	KUNIT_ASSERT_EQ(test, parse(test, ";", &f), 0);
	KUNIT_EXPECT_EQ(test, f.nr, 0U);
	ue_fields_free(&f);
}

static void ue_test_print_fmt_multi(struct kunit *test)
{
	struct ue_fields f;
	char *fmt;

	KUNIT_ASSERT_EQ(test, parse(test, "__data_loc char[] msg;u32 id;char[4] tag", &f), 0);
	fmt = ue_print_fmt(&f, GFP_KERNEL, NULL);
	KUNIT_ASSERT_NOT_NULL(test, fmt);
	KUNIT_EXPECT_STREQ(test, fmt,
			   "\"msg=%s id=%u tag=%s\", __get_str(msg), REC->id, REC->tag");
	kfree(fmt);
	ue_fields_free(&f);
}

static void ue_test_struct_type_text(struct kunit *test)
{
	struct ue_fields f;

	KUNIT_ASSERT_EQ(test, parse(test, "struct my_struct s 24", &f), 0);
	KUNIT_EXPECT_STREQ(test, f.field[0].type, "struct my_struct");
	KUNIT_EXPECT_STREQ(test, f.field[0].name, "s");
	KUNIT_EXPECT_TRUE(test, f.field[0].is_struct);
	ue_fields_free(&f);
}

/* --- tables in the caller's spare room ------------------------------------ */

static void ue_test_spare(struct kunit *test)
{
	/* room for two fields, a validator and 16 bytes, poisoned */
	size_t room = 2 * sizeof(struct ue_field) + sizeof(struct ue_validator) + 16;
	u8 *buf = kunit_kmalloc(test, room, GFP_KERNEL);
	struct ue_spare spare;
	struct ue_fields f;
	char *fmt;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 0xa5, room);

	/* Pieces are 8-byte aligned; what does not fit is refused. */
	spare = (struct ue_spare){ buf, room };
	KUNIT_EXPECT_PTR_EQ(test, ue_spare_take(&spare, 1), (void *)buf);
	KUNIT_EXPECT_PTR_EQ(test, ue_spare_take(&spare, 9), (void *)(buf + 8));
	KUNIT_EXPECT_EQ(test, spare.len, room - 24);
	KUNIT_EXPECT_NULL(test, ue_spare_take(&spare, room - 23));
	KUNIT_EXPECT_PTR_EQ(test, ue_spare_take(&spare, room - 24), (void *)(buf + 24));
	KUNIT_EXPECT_EQ(test, spare.len, 0UL);
	KUNIT_EXPECT_NULL(test, ue_spare_take(NULL, 1));

	/* The tables fit: the fields first, then the validator, zeroed. */
	spare = (struct ue_spare){ buf, room };
	KUNIT_ASSERT_EQ(test, ue_fields_parse(dup(test, "u32 a;__rel_loc char[] s"),
					      &f, &spare), 0);
	KUNIT_EXPECT_PTR_EQ(test, (void *)f.field, (void *)buf);
	KUNIT_EXPECT_FALSE(test, f.own_field);
	KUNIT_EXPECT_PTR_EQ(test, (void *)f.validator,
			    (void *)(buf + 2 * sizeof(struct ue_field)));
	KUNIT_EXPECT_FALSE(test, f.own_validator);
	KUNIT_EXPECT_EQ(test, f.field[1].offset, 12U);
	KUNIT_EXPECT_EQ(test, f.field[0].array_len, 0U);
	KUNIT_EXPECT_NULL(test, f.field[0].core_type);
	KUNIT_EXPECT_EQ(test, f.validator[0].offset, 12U);
	KUNIT_EXPECT_EQ(test, spare.len, 16UL);
	/* "a=%u s=%s", REC->a, __get_rel_str(s): too long for 16 bytes */
	fmt = ue_print_fmt(&f, GFP_KERNEL, &spare);
	KUNIT_ASSERT_NOT_NULL(test, fmt);
	KUNIT_EXPECT_FALSE(test, fmt >= (char *)buf && fmt < (char *)buf + room);
	KUNIT_EXPECT_STREQ(test, fmt, "\"a=%u s=%s\", REC->a, __get_rel_str(s)");
	kfree(fmt);
	/* Freeing leaves the spare room to its owner (KASAN would tell). */
	ue_fields_free(&f);

	/* Three fields do not fit: allocated; the validator still does. */
	spare = (struct ue_spare){ buf, room };
	KUNIT_ASSERT_EQ(test, ue_fields_parse(dup(test, "u8 a;u8 b;__data_loc char[] s"),
					      &f, &spare), 0);
	KUNIT_EXPECT_TRUE(test, f.own_field);
	KUNIT_EXPECT_PTR_EQ(test, (void *)f.validator, (void *)buf);
	KUNIT_EXPECT_FALSE(test, f.own_validator);
	KUNIT_EXPECT_EQ(test, f.validator[0].offset, 10U);
	KUNIT_EXPECT_EQ(test, f.min_size, 6U);
	ue_fields_free(&f);

	/* A print fmt that fits is taken from the room. */
	spare = (struct ue_spare){ buf, room };
	KUNIT_ASSERT_EQ(test, ue_fields_parse(dup(test, "u8 a"), &f, NULL), 0);
	fmt = ue_print_fmt(&f, GFP_KERNEL, &spare);
	KUNIT_EXPECT_PTR_EQ(test, (void *)fmt, (void *)buf);
	KUNIT_EXPECT_STREQ(test, fmt, "\"a=%u\", REC->a");
	ue_fields_free(&f);

	/* A failed parse frees only what it allocated. */
	spare = (struct ue_spare){ buf, room };
	KUNIT_EXPECT_EQ(test, ue_fields_parse(dup(test, "u32 a;x y"), &f, &spare),
			-EINVAL);
	spare = (struct ue_spare){ buf, room };
	KUNIT_EXPECT_EQ(test, ue_fields_parse(dup(test, "u8 a;u8 b;u8 c;x y"), &f,
					      &spare), -EINVAL);
}

/* --- name splitting ------------------------------------------------------ */

static void ue_test_cmd_split(struct kunit *test)
{
	char *name, *args;
	char *cmd;

	cmd = dup(test, "ev u32 a; u8 b");
	KUNIT_ASSERT_EQ(test, ue_cmd_split(cmd, &name, &args), 0);
	KUNIT_EXPECT_STREQ(test, name, "ev");
	KUNIT_EXPECT_STREQ(test, args, "u32 a; u8 b");

	cmd = dup(test, "ev");
	KUNIT_ASSERT_EQ(test, ue_cmd_split(cmd, &name, &args), 0);
	KUNIT_EXPECT_STREQ(test, name, "ev");
	KUNIT_EXPECT_NULL(test, args);

	cmd = dup(test, "ev:flag u32 a");
	KUNIT_EXPECT_EQ(test, ue_cmd_split(cmd, &name, &args), -EINVAL);
	cmd = dup(test, "ev:");
	KUNIT_EXPECT_EQ(test, ue_cmd_split(cmd, &name, &args), -EINVAL);

	/* A ':' after the name is the fields' business, not a flag. */
	cmd = dup(test, "ev u32 a:b");
	KUNIT_EXPECT_EQ(test, ue_cmd_split(cmd, &name, &args), 0);
}

/* --- matching ------------------------------------------------------------ */

struct match_case {
	const char	*fields;	/* NULL: no fields */
	const char	*args;		/* NULL: no args */
	bool		match;
};

static const struct match_case match_cases[] = {
	{ "u32 a; u32 b", "u32 a; u32 b", true },
	{ "u32 a; u32 b", "u32 a;u32 b", true },
	{ "u32 a; u32 b", "u32 a; u32 b;", true },
	{ "u32 a; u32 b", "  u32   a;   u32 b", true },
	{ "u32 a;u32 b", "u32 a; u32 b", true },
	{ "u32 a; u32 b", "u32 b; u32 a", false },
	{ "u32 a; u32 b", "u32 a", false },
	{ "u32 a; u32 b", "u32 a; u32 b; u32 c", false },
	{ "u32 a; u32 b", "u32 a; s32 b", false },
	{ "u32 a; u32 b", "u32 a; u32 c", false },
	{ "u32 a; u32 b", NULL, false },
	{ NULL, NULL, true },
	{ NULL, "u32 a", false },
	{ "struct x a 8", "struct x a 8", true },
	{ "struct x a 8", "struct x a 9", false },
	{ "struct y a 8", "struct x a 8", false },
	{ "char[20] s", "char[20] s", true },
	{ "char[20] s", "char[21] s", false },
	{ "__rel_loc char[] s; u64 n", "__rel_loc char[] s;u64 n;", true },
	{ "unsigned int a", "unsigned int a", true },
	{ "unsigned int a", "unsigned  int a", true },
};

static void match_case_desc(const struct match_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "[%s] vs [%s]",
		 c->fields ?: "", c->args ?: "");
}

KUNIT_ARRAY_PARAM(match, match_cases, match_case_desc);

static void ue_test_match(struct kunit *test)
{
	const struct match_case *c = test->param_value;
	char **argv = NULL;
	struct ue_fields f = {};
	int argc = 0;

	if (c->fields)
		KUNIT_ASSERT_EQ(test, parse(test, c->fields, &f), 0);
	if (c->args) {
		argv = ue_args_split(c->args, &argc);
		KUNIT_ASSERT_NOT_NULL(test, argv);
	}
	KUNIT_EXPECT_EQ(test, ue_fields_match(&f, argc, (const char **)argv), c->match);
	if (argv)
		argv_free(argv);
	ue_fields_free(&f);
}

/* --- validators ---------------------------------------------------------- */

/* A record of trace_entry + one loc field + @data; returns its length. */
static u32 loc_record(u8 *rec, u32 loc, const char *data, u32 len)
{
	memset(rec, 0xee, 8);
	memcpy(rec + 8, &loc, 4);
	memcpy(rec + 12, data, len);
	return 12 + len;
}

static void ue_test_validate_rel(struct kunit *test)
{
	struct ue_fields f;
	u8 rec[64];
	u32 len;

	KUNIT_ASSERT_EQ(test, parse(test, "__rel_loc char[] s", &f), 0);
	len = loc_record(rec, DYN_LOC(0, 5), "Test", 5);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), 0);
	/* Ending exactly at the record's end is fine; one past is not. */
	len = loc_record(rec, DYN_LOC(1, 4), "xTes", 5);
	rec[len - 1] = '\0';
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), 0);
	len = loc_record(rec, DYN_LOC(1, 5), "Test", 5);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	len = loc_record(rec, DYN_LOC(0, 6), "Test", 5);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	len = loc_record(rec, DYN_LOC(1024, 5), "Test", 5);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	/* Missing NUL. */
	len = loc_record(rec, DYN_LOC(0, 4), "Test", 4);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	/*
	 * Size 0: upstream checks the byte before the data, here the loc
	 * word's top byte, 0, and passes; a string has at least its NUL, so
	 * it is refused. Also with a NUL right
	 * before the data, and with one at the data, past its size.
	 */
	len = loc_record(rec, DYN_LOC(0, 0), "", 0);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	len = loc_record(rec, DYN_LOC(1, 0), "\0x", 2);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	len = loc_record(rec, DYN_LOC(0, 0), "\0", 1);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	ue_fields_free(&f);
}

static void ue_test_validate_data(struct kunit *test)
{
	struct ue_fields f;
	u8 rec[64];
	u32 len;

	KUNIT_ASSERT_EQ(test, parse(test, "__data_loc char[] s", &f), 0);
	/* __data_loc offsets count from the record's start, header included. */
	len = loc_record(rec, DYN_LOC(12, 5), "Data", 5);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), 0);
	len = loc_record(rec, DYN_LOC(13, 5), "Data", 5);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	len = loc_record(rec, DYN_LOC(12, 4), "Data", 4);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	/* The data may overlap the header and fixed fields: no lower bound. */
	len = loc_record(rec, DYN_LOC(4, 9), "", 1);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), 0);
	/*
	 * ... but a string may not end in the header, whatever its bytes (the
	 * writer does not write the header): DYN_LOC(0, 2), header zero or
	 * not, and an empty string right after the header (its "last byte" is
	 * the header's).
	 */
	len = loc_record(rec, DYN_LOC(0, 2), "", 0);
	memset(rec, 0, 8);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	len = loc_record(rec, DYN_LOC(0, 1), "", 0);
	rec[0] = '\0';
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	len = loc_record(rec, DYN_LOC(8, 0), "", 0);
	memset(rec, 0, 8);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	/*
	 * Size 0 past the header, the byte before it a NUL: passes upstream,
	 * refused here.
	 */
	len = loc_record(rec, DYN_LOC(13, 0), "\0abc", 4);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	len = loc_record(rec, DYN_LOC(12, 0), "\0", 1);
	rec[11] = '\0';
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	ue_fields_free(&f);
}

static void ue_test_validate_non_string(struct kunit *test)
{
	struct ue_fields f;
	u8 rec[64];
	u32 len;

	KUNIT_ASSERT_EQ(test, parse(test, "__rel_loc u8[] b", &f), 0);
	KUNIT_EXPECT_FALSE(test, f.validator[0].needs_nul);
	/* Bounds only: no NUL needed. */
	len = loc_record(rec, DYN_LOC(0, 3), "abc", 3);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), 0);
	len = loc_record(rec, DYN_LOC(0, 4), "abc", 3);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), -EFAULT);
	/* Empty data that is no string stays valid. */
	len = loc_record(rec, DYN_LOC(0, 0), "", 0);
	KUNIT_EXPECT_EQ(test, ue_validate(&f, rec, len), 0);
	ue_fields_free(&f);
}

static struct kunit_case ue_parse_cases[] = {
	KUNIT_CASE_PARAM(ue_test_type, type_gen_params),
	KUNIT_CASE_PARAM(ue_test_rejected, bad_gen_params),
	KUNIT_CASE(ue_test_layout),
	KUNIT_CASE(ue_test_no_fields),
	KUNIT_CASE(ue_test_whitespace),
	KUNIT_CASE(ue_test_print_fmt_multi),
	KUNIT_CASE(ue_test_struct_type_text),
	KUNIT_CASE(ue_test_spare),
	KUNIT_CASE(ue_test_cmd_split),
	KUNIT_CASE_PARAM(ue_test_match, match_gen_params),
	KUNIT_CASE(ue_test_validate_rel),
	KUNIT_CASE(ue_test_validate_data),
	KUNIT_CASE(ue_test_validate_non_string),
	{}
};

static struct kunit_suite ue_parse_suite = {
	.name = "user_events_parse",
	.test_cases = ue_parse_cases,
};

kunit_test_suite(ue_parse_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of user-events-dkms's command parser");
