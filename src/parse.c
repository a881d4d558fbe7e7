// SPDX-License-Identifier: GPL-2.0
/*
 * The user event command language (user_events.rst, Command Format): field
 * lists, their record layout, print format and validators, and the comparison
 * of a field list with a registration request. See parse.h.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat/unaligned.h"
#include "parse.h"

/* A fixed-size type (upstream's user_field_size()): size and print format. */
struct ue_basic_type {
	const char	*name;
	u32		size;
	const char	*fmt;
};

static const struct ue_basic_type ue_basic_types[] = {
	{ "s64",		8, "%lld" },
	{ "u64",		8, "%llu" },
	{ "s32",		4, "%d" },
	{ "u32",		4, "%u" },
	{ "int",		4, "%d" },
	{ "unsigned int",	4, "%u" },
	{ "s16",		2, "%d" },
	{ "u16",		2, "%u" },
	{ "short",		2, "%d" },
	{ "unsigned short",	2, "%u" },
	{ "s8",			1, "%d" },
	{ "u8",			1, "%u" },
	{ "char",		1, "%d" },
	{ "unsigned char",	1, "%u" },
};

/*
 * Types with a space in them, recognised by prefix, as upstream's
 * user_event_parse_field() does. Order matters: "__data_loc unsigned " must
 * be tried before "__data_loc ".
 */
static const char * const ue_spaced_prefixes[] = {
	"unsigned ",
	"struct ",
	"__data_loc unsigned ",
	"__data_loc ",
	"__rel_loc unsigned ",
	"__rel_loc ",
};

/* Longest text between the brackets of char[N], ']' included, plus NUL. */
#define UE_ARRAY_TEXT	8

int ue_cmd_split(char *cmd, char **name, char **args)
{
	char *space = strchr(cmd, ' ');

	if (space)
		*space++ = '\0';

	/* "NAME:FLAGS": no flags are defined, so any is an error */
	if (strchr(cmd, ':'))
		return -EINVAL;

	*name = cmd;
	*args = space;
	return 0;
}

static const struct ue_basic_type *ue_basic_type(const char *type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ue_basic_types); i++)
		if (!strcmp(type, ue_basic_types[i].name))
			return &ue_basic_types[i];
	return NULL;
}

/* Length of the prefix of @field that makes its type contain a space. */
static size_t ue_spaced_prefix_len(const char *field)
{
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(ue_spaced_prefixes); i++) {
		len = str_has_prefix(field, ue_spaced_prefixes[i]);
		if (len)
			return len;
	}
	return 0;
}

/*
 * Split one field, leading white space already skipped, into TYPE, NAME and
 * the optional SIZE text, as upstream's user_event_parse_field(). Every
 * single space separates, so two spaces in a row or a trailing space make an
 * empty token, which is an error; tabs are not separators. A type with a
 * known prefix runs to the first space after that prefix.
 *
 * Upstream accepts an empty NAME ("u32 ", "unsigned int ;"), a field that can
 * never match its own registration text; here a trailing space is an error
 * wherever it is.
 */
static int ue_field_split(char *field, struct ue_field *f, char **size_text)
{
	size_t prefix = ue_spaced_prefix_len(field);
	char *rest = field;
	char *name;

	if (prefix) {
		rest = strchr(field + prefix, ' ');
		if (!rest)
			return -EINVAL;
		*rest++ = '\0';
	} else {
		strsep(&rest, " ");
	}

	name = strsep(&rest, " ");
	if (!name || !*name)
		return -EINVAL;

	*size_text = strsep(&rest, " ");
	if (rest)
		return -EINVAL;		/* a fourth token */

	f->type = field;
	f->name = name;
	f->is_struct = str_has_prefix(field, "struct ");
	return 0;
}

/*
 * N of "char[N]", as upstream's user_field_array_size(): at most 7
 * characters after '[', ']' included, in any base kstrtouint() knows;
 * 1 <= N <= UE_MAX_ARRAY.
 */
static int ue_array_len(const char *type, u32 *len)
{
	char text[UE_ARRAY_TEXT];
	char *bracket;
	unsigned int n;

	if (strscpy(text, strchr(type, '[') + 1, sizeof(text)) <= 0)
		return -EINVAL;

	bracket = strchr(text, ']');
	if (!bracket)
		return -EINVAL;
	*bracket = '\0';

	if (kstrtouint(text, 0, &n) || n == 0 || n > UE_MAX_ARRAY)
		return -EINVAL;

	*len = n;
	return 0;
}

/*
 * Size of a field that is not a struct (upstream's user_field_size()): a
 * basic type, a char array, or a 4-byte __data_loc/__rel_loc word. Anything
 * else, "long" included, is an error.
 */
static int ue_type_size(struct ue_field *f)
{
	const struct ue_basic_type *basic = ue_basic_type(f->type);
	int ret;

	if (basic) {
		f->size = basic->size;
		return 0;
	}

	if (str_has_prefix(f->type, "char[") ||
	    str_has_prefix(f->type, "unsigned char[")) {
		ret = ue_array_len(f->type, &f->array_len);
		f->size = f->array_len;
		return ret;
	}

	if (str_has_prefix(f->type, "__data_loc "))
		f->loc = UE_LOC_DATA;
	else if (str_has_prefix(f->type, "__rel_loc "))
		f->loc = UE_LOC_REL;
	else
		return -EINVAL;

	f->size = sizeof(u32);
	return 0;
}

/*
 * Size of a field: SIZE, decimal and non-zero, for a struct and only for a
 * struct. Upstream returns SIZE >= 2^31 as a (meaningless) negative error;
 * here it is -EINVAL.
 */
static int ue_field_size(struct ue_field *f, const char *size_text)
{
	if (!f->is_struct)
		return size_text ? -EINVAL : ue_type_size(f);

	if (!size_text || kstrtou32(size_text, 10, &f->size))
		return -EINVAL;
	if (f->size == 0 || f->size > INT_MAX)
		return -EINVAL;
	return 0;
}

/*
 * Parse one non-empty field placed at record @offset into @f.
 * Fields are packed. The record must stay below 2 GiB, as the tracing core
 * keeps offsets in an int; upstream silently wraps instead.
 */
static int ue_field_parse(char *text, u32 offset, struct ue_field *f)
{
	char *size_text;
	int ret;

	ret = ue_field_split(text, f, &size_text);
	if (ret)
		return ret;

	ret = ue_field_size(f, size_text);
	if (ret)
		return ret;

	if (f->size > INT_MAX - offset)
		return -EINVAL;

	f->offset = offset;
	f->is_signed = f->type[0] != 'u';
	f->is_string = f->loc != UE_LOC_NONE && strstr(f->type, "char");
	return 0;
}

/* Start of the field in @seg, or NULL when it is blank. */
static char *ue_field_start(const char *seg)
{
	char *start = skip_spaces(seg);

	return *start && *start != ';' ? start : NULL;
}

/* Number of non-blank ';'-separated fields in @args. */
static u32 ue_count_fields(const char *args)
{
	u32 n = 0;

	for (;;) {
		if (ue_field_start(args))
			n++;
		args = strchr(args, ';');
		if (!args)
			return n;
		args++;
	}
}

void *ue_spare_take(struct ue_spare *spare, size_t bytes)
{
	void *p;

	if (!spare || bytes > spare->len)
		return NULL;
	p = spare->buf;
	bytes = min(ALIGN(bytes, 8), spare->len);
	spare->buf += bytes;
	spare->len -= bytes;
	return p;
}

/*
 * A zeroed array of @n elements of @size: from @spare if it fits there
 * (*@own = false), else allocated (*@own = true).
 */
static void *ue_table_alloc(struct ue_spare *spare, u32 n, size_t size,
			    bool *own)
{
	size_t bytes = array_size(n, size);
	void *table = ue_spare_take(spare, bytes);

	*own = !table;
	if (!table)
		return kvcalloc(n, size, GFP_KERNEL_ACCOUNT);
	memset(table, 0, bytes);
	return table;
}

/* One validator per __data_loc/__rel_loc field, in order. */
static int ue_validators_build(struct ue_fields *f, struct ue_spare *spare)
{
	struct ue_validator *v;
	u32 i, n = 0;

	for (i = 0; i < f->nr; i++)
		if (f->field[i].loc != UE_LOC_NONE)
			n++;
	if (!n)
		return 0;

	f->validator = ue_table_alloc(spare, n, sizeof(*f->validator),
				      &f->own_validator);
	if (!f->validator)
		return -ENOMEM;

	for (i = 0; i < f->nr; i++) {
		if (f->field[i].loc == UE_LOC_NONE)
			continue;
		v = &f->validator[f->nr_validators++];
		v->offset = f->field[i].offset;
		v->loc = f->field[i].loc;
		v->needs_nul = f->field[i].is_string;
	}
	return 0;
}

int ue_fields_parse(char *args, struct ue_fields *out, struct ue_spare *spare)
{
	u32 offset = UE_ENTRY_SIZE;
	u32 max;
	char *text;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!args)
		return 0;

	max = ue_count_fields(args);
	if (!max)
		return 0;

	out->field = ue_table_alloc(spare, max, sizeof(*out->field),
				    &out->own_field);
	if (!out->field)
		return -ENOMEM;

	/* empty fields, such as after a trailing ';', are skipped */
	while (args && out->nr < max) {
		text = ue_field_start(strsep(&args, ";"));
		if (!text)
			continue;

		ret = ue_field_parse(text, offset, &out->field[out->nr]);
		if (ret)
			goto fail;
		offset += out->field[out->nr].size;
		out->nr++;
	}

	/* the trace_entry header is not part of what a write carries */
	out->min_size = offset - UE_ENTRY_SIZE;

	ret = ue_validators_build(out, spare);
	if (ret)
		goto fail;
	return 0;
fail:
	ue_fields_free(out);
	return ret;
}

void ue_fields_free(struct ue_fields *f)
{
	if (f->own_field)
		kvfree(f->field);
	if (f->own_validator)
		kvfree(f->validator);
	memset(f, 0, sizeof(*f));
}

/* A field's conversion in the print fmt (upstream's user_field_format()). */
static const char *ue_field_fmt(const struct ue_field *f)
{
	const struct ue_basic_type *basic = ue_basic_type(f->type);

	if (basic)
		return basic->fmt;
	if (strstr(f->type, "char["))
		return "%s";
	return "%llu";		/* structs, and locs of anything but char[] */
}

/*
 * The helper that prints a dynamic string field, or NULL, as upstream's
 * user_field_is_dyn_string().
 */
static const char *ue_field_str_func(const struct ue_field *f)
{
	if (!f->is_string)
		return NULL;
	return f->loc == UE_LOC_REL ? "__get_rel_str" : "__get_str";
}

/* snprintf() at @pos of @buf, which may be too short or NULL. */
static __printf(4, 5)
size_t ue_put(char *buf, size_t size, size_t pos, const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	if (pos < size)
		n = vsnprintf(buf + pos, size - pos, fmt, args);
	else
		n = vsnprintf(NULL, 0, fmt, args);
	va_end(args);
	return pos + n;
}

/*
 * Write the print fmt into @buf of @size bytes: "a=FMT b=FMT", then
 * ", REC->a" or ", __get_str(a)" per field, as upstream's
 * user_event_set_print_fmt(). Returns its length.
 */
static size_t ue_print_fmt_render(const struct ue_fields *f, char *buf,
				  size_t size)
{
	const struct ue_field *field;
	const char *func;
	size_t pos = 0;
	u32 i;

	pos = ue_put(buf, size, pos, "\"");
	for (i = 0; i < f->nr; i++) {
		field = &f->field[i];
		pos = ue_put(buf, size, pos, "%s%s=%s", i ? " " : "",
			     field->name, ue_field_fmt(field));
	}
	pos = ue_put(buf, size, pos, "\"");

	for (i = 0; i < f->nr; i++) {
		field = &f->field[i];
		func = ue_field_str_func(field);
		if (func)
			pos = ue_put(buf, size, pos, ", %s(%s)", func,
				     field->name);
		else
			pos = ue_put(buf, size, pos, ", REC->%s", field->name);
	}
	return pos;
}

char *ue_print_fmt(const struct ue_fields *f, gfp_t gfp,
		   struct ue_spare *spare)
{
	size_t len = ue_print_fmt_render(f, NULL, 0) + 1;
	char *fmt = ue_spare_take(spare, len);

	if (!fmt)
		fmt = kmalloc(len, gfp);
	if (fmt)
		ue_print_fmt_render(f, fmt, len);
	return fmt;
}

/* Number of ';' in @args that no white space follows. */
static size_t ue_count_bare_semis(const char *args)
{
	size_t n = 0;

	while ((args = strchr(args, ';'))) {
		args++;
		if (!isspace(*args))
			n++;
	}
	return n;
}

char **ue_args_split(const char *args, int *argc)
{
	size_t semis = ue_count_bare_semis(args);
	size_t len = strlen(args) + semis;
	char *spaced, *pos;
	char **argv;

	if (!semis)
		return argv_split(GFP_KERNEL_ACCOUNT, args, argc);
	spaced = kmalloc(len + 1, GFP_KERNEL_ACCOUNT);
	if (!spaced)
		return NULL;

	/* "a;b" becomes "a; b", so that ';' always ends a token (as upstream) */
	for (pos = spaced; *args; args++) {
		*pos++ = *args;
		if (*args == ';' && !isspace(args[1]))
			*pos++ = ' ';
	}
	*pos = '\0';

	argv = argv_split(GFP_KERNEL_ACCOUNT, spaced, argc);
	kfree(spaced);
	return argv;
}

/*
 * The request tokens of one field, argv[tok..end) joined with one space,
 * read a character at a time.
 */
struct ue_joined {
	const char	**argv;
	int		tok;
	int		end;
	const char	*pos;
};

/* Consume @s from the joined tokens; false if they differ. */
static bool ue_joined_eat(struct ue_joined *j, const char *s)
{
	for (; *s; s++) {
		if (*j->pos) {
			if (*j->pos++ != *s)
				return false;
			continue;
		}
		/* end of a token: only a space joins it to the next */
		if (*s != ' ' || j->tok + 1 >= j->end)
			return false;
		j->pos = j->argv[++j->tok];
	}
	return true;
}

/* Whether every token has been consumed. */
static bool ue_joined_done(const struct ue_joined *j)
{
	return !*j->pos && j->tok + 1 == j->end;
}

/*
 * Whether @f matches the tokens from argv[*i]: those up to and including the
 * first one containing ';' (or all that are left), joined with one space,
 * must read "TYPE NAME[ SIZE][;]", SIZE for structs only and ';' iff one was
 * consumed, as upstream's user_field_match(). Advances *i past them.
 */
static bool ue_field_match(const struct ue_field *f, int argc,
			   const char **argv, int *i)
{
	struct ue_joined j = { .argv = argv, .tok = *i, .end = argc };
	char size[12];
	bool semi = false;
	int k;

	if (*i >= argc)
		return false;

	for (k = *i; k < argc; k++) {
		if (strchr(argv[k], ';')) {
			j.end = k + 1;
			semi = true;
			break;
		}
	}
	j.pos = argv[j.tok];
	*i = j.end;

	if (!ue_joined_eat(&j, f->type) || !ue_joined_eat(&j, " ") ||
	    !ue_joined_eat(&j, f->name))
		return false;
	if (f->is_struct) {
		snprintf(size, sizeof(size), " %u", f->size);
		if (!ue_joined_eat(&j, size))
			return false;
	}
	if (semi && !ue_joined_eat(&j, ";"))
		return false;
	return ue_joined_done(&j);
}

bool ue_fields_match(const struct ue_fields *f, int argc, const char **argv)
{
	int i = 0;
	u32 n;

	/* a request without fields matches only an event without fields */
	if (argc == 0)
		return f->nr == 0;

	for (n = 0; n < f->nr; n++)
		if (!ue_field_match(&f->field[n], argc, argv, &i))
			return false;

	return i == argc;
}

/*
 * Check one __data_loc/__rel_loc word, as upstream's user_event_validate():
 * its data must end within the record, and a string's last byte must be NUL.
 *
 * A string of size 0 is refused. Upstream checks the byte before the data
 * then, so DYN_LOC(len, 0) passes whenever that byte is 0, and readers that
 * take the size as the string's bytes get none, not even a NUL: the core's
 * string filters (the length-0 case of filter_pred_strloc()) and hist string
 * variables then read on past the record until they meet a 0. A
 * NUL-terminated string has at least one byte; a size of 0 is as malformed as
 * a missing NUL. Zero-size data of other types (u8[] and the like) stays
 * valid: nothing reads it as a string.
 *
 * A string whose last byte lies in the 8-byte header (a __data_loc such as
 * DYN_LOC(0, 2)) is refused. Upstream checks the header of the record it
 * reserved, whose bytes (type id, flags, pid) the writer does not control,
 * so such a write passes or fails by chance; here the header of the bounce
 * buffer is zero and would always pass, leaving every reader a string that
 * is terminated only by the header of this one record. Data may still
 * start in the header, as long as it ends in the payload.
 */
static int ue_validate_one(const struct ue_validator *v, const u8 *rec,
			   u32 len)
{
	u64 start, end;
	u32 loc;

	/* min_size was checked by the caller; this only guards the read */
	if ((u64)v->offset + sizeof(loc) > len)
		return -EFAULT;

	loc = get_unaligned((const u32 *)(rec + v->offset));
	start = loc & 0xffff;
	if (v->loc == UE_LOC_REL)
		start += v->offset + sizeof(loc);
	end = start + (loc >> 16);

	if (end > len)
		return -EFAULT;
	if (v->needs_nul && (end == start || end <= UE_ENTRY_SIZE ||
			     rec[end - 1] != '\0'))
		return -EFAULT;
	return 0;
}

int ue_validate(const struct ue_fields *f, const void *rec, u32 len)
{
	u32 i;
	int ret;

	for (i = 0; i < f->nr_validators; i++) {
		ret = ue_validate_one(&f->validator[i], rec, len);
		if (ret)
			return ret;
	}
	return 0;
}
