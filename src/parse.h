/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user event command language (user_events.rst, Command Format):
 * "NAME[ FIELD[;FIELD...]]".
 *
 * This unit has no dependency on the tracing core: it turns text into field
 * descriptions, print formats and validators, and compares field lists. The
 * strings of a parsed field point into the command buffer it was parsed
 * from, which the caller keeps for as long as the fields live.
 */
#ifndef UE_PARSE_H
#define UE_PARSE_H

#include <linux/trace_events.h>
#include <linux/types.h>

/* Longest command accepted through the ioctl, NUL included (MAX_EVENT_DESC). */
#define UE_MAX_CMD		512

/* Largest N of char[N] and unsigned char[N] (MAX_FIELD_ARRAY_SIZE). */
#define UE_MAX_ARRAY		1024

/*
 * Size of struct trace_entry: where the first field starts in a record. 8,
 * but 12 on 5.10's PREEMPT_RT kernels, whose patches add migrate_disable
 * and preempt_lazy_count to it: there, fields placed at 8 overlapped those
 * common fields, and a write landed 4 bytes before where the format file
 * says (Debian 11's rt kernel; upstream perf_test perf_write).
 */
#define UE_ENTRY_SIZE		((u32)sizeof(struct trace_entry))

enum ue_loc {
	UE_LOC_NONE = 0,	/* a fixed-size field */
	UE_LOC_DATA,		/* __data_loc: offset from the record's start */
	UE_LOC_REL,		/* __rel_loc: offset from the end of the field */
};

struct ue_field {
	const char	*type;		/* e.g. "u32", "unsigned char[20]", "struct x" */
	const char	*name;
	u32		offset;		/* in the record, trace_entry included */
	u32		size;
	u32		array_len;	/* N of char[N] / unsigned char[N], else 0 */
	u8		is_signed;	/* type[0] != 'u' */
	u8		loc;		/* enum ue_loc */
	bool		is_string;	/* a __data_loc/__rel_loc whose type has "char" */
	bool		is_struct;	/* "struct X name SIZE" */
	char		*core_type;	/* the core's "char[N]" (event.c), or NULL */
};

/* What the write path checks of each __data_loc/__rel_loc field. */
struct ue_validator {
	u32	offset;			/* of the u32 loc word in the record */
	u8	loc;			/* UE_LOC_DATA or UE_LOC_REL */
	bool	needs_nul;		/* the data's last byte must be '\0' */
};

struct ue_fields {
	struct ue_field		*field;		/* declaration order */
	u32			nr;
	u32			min_size;	/* payload bytes a write must carry */
	struct ue_validator	*validator;	/* declaration order */
	u32			nr_validators;
	bool			own_field;	/* field was allocated */
	bool			own_validator;	/* validator was allocated */
};

/*
 * Split a command in place at its first space into *name and *args (NULL
 * when there is no space). A ':' in the name (flags syntax) is -EINVAL.
 */
int ue_cmd_split(char *cmd, char **name, char **args);

/*
 * Memory a caller owns and lends to the allocations below, handed out in
 * 8-byte aligned pieces: @buf 8-byte aligned, @len bytes.
 */
struct ue_spare {
	u8	*buf;
	size_t	len;
};

/* @bytes of @spare (which may be NULL), or NULL if they do not fit. */
void *ue_spare_take(struct ue_spare *spare, size_t bytes);

/*
 * Parse the field list @args in place (it is modified, and the fields point
 * into it). @args may be NULL: no fields. On success fills @out and returns
 * 0; a grammar error is -EINVAL, allocation failure -ENOMEM. The field and
 * validator arrays are taken from @spare (may be NULL) where they fit, and
 * otherwise allocated with GFP_KERNEL_ACCOUNT. Free with ue_fields_free(),
 * which leaves what came from @spare alone.
 */
int ue_fields_parse(char *args, struct ue_fields *out, struct ue_spare *spare);
void ue_fields_free(struct ue_fields *f);

/*
 * The print fmt, as upstream's user_event_set_print_fmt() makes it: taken
 * from @spare (may be NULL) if it fits, else kmalloc'd with @gfp; NULL on
 * allocation failure.
 */
char *ue_print_fmt(const struct ue_fields *f, gfp_t gfp,
		   struct ue_spare *spare);

/*
 * Split field arguments for matching: a space is put after every ';' not
 * followed by white space, then the text is split at white space
 * (argv_split). NULL on allocation failure; free with argv_free().
 */
char **ue_args_split(const char *args, int *argc);

/*
 * Whether the fields equal the split arguments under the rules of upstream's
 * user_fields_match().
 */
bool ue_fields_match(const struct ue_fields *f, int argc, const char **argv);

/*
 * Check the __data_loc/__rel_loc fields of a record of @len bytes (the
 * trace_entry included) as upstream's user_event_validate() does: 0, or
 * -EFAULT. The caller has already checked that the record holds min_size
 * payload bytes.
 */
int ue_validate(const struct ue_fields *f, const void *rec, u32 len);

#endif /* UE_PARSE_H */
