// SPDX-License-Identifier: GPL-2.0
/*
 * write()/writev(): every errno of upstream's user_events_write_core() in its
 * order, the __data_loc and __rel_loc validators, payloads beyond min_size,
 * the text of every field type in "trace", ftrace filters, and a second trace
 * instance.
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "ue_abi.h"

#define INSTANCE TRACEFS "/instances/ue_write_test"

static __u32 word;

/* writev of [index][payload]: its result, or -errno. */
static long wr(int fd, int index, const void *payload, size_t len)
{
	struct iovec io[2] = {
		{ &index, sizeof(index) },
		{ (void *)payload, len },
	};
	long ret = writev(fd, io, len ? 2 : 1);

	return ret < 0 ? -errno : ret;
}

/*
 * writev of the index split after @first bytes, behind an empty iovec, and
 * a u32 payload: the index is read whole wherever it lies. @bad puts the
 * index's first piece at an unmapped address.
 */
static long wr_split(int fd, __u32 idx, __u32 value, size_t first, int bad)
{
	char buf[8];
	struct iovec io[3] = {
		{ buf, 0 },
		{ bad ? ue_bad_ptr : buf, first },
		{ buf + first, 8 - first },
	};
	long ret;

	memcpy(buf, &idx, 4);
	memcpy(buf + 4, &value, 4);
	ret = writev(fd, io, 3);
	return ret < 0 ? -errno : ret;
}

/*
 * A valid payload whose page is not present yet (a file mapping never
 * touched): the copy, made with page faults disabled, comes up short; the
 * module faults the page in and copies again, and the write succeeds.
 */
static void not_present_payload(int fd, __u32 idx)
{
	__u32 value = 0x5a5a;
	int tfd = open("/tmp/wr_not_present", O_RDWR | O_CREAT | O_TRUNC, 0600);
	void *map;

	UE_EQ("not_present.file", tfd >= 0 && write(tfd, &value, 4) == 4, 1);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, tfd, 0);
	UE_EQ("not_present.mmap", map != MAP_FAILED, 1);
	if (map == MAP_FAILED)
		return;
	ue_trace_clear();
	UE_EQ("not_present.write", wr(fd, idx, map, 4), 8);
	UE_EQ("not_present.recorded", ue_trace_has("wr_rows: a=0x5a5a (23130)"), 1);
	munmap(map, 4096);
	close(tfd);
	unlink("/tmp/wr_not_present");
}

static void errno_rows(void)
{
	int fd = ue_open_data(), index = 0;
	__u32 idx = 0, payload = 7;
	char buf[16];

	/* An fd that registered nothing. */
	UE_EQ("unregistered_fd_enoent", wr(fd, 0, NULL, 0), -ENOENT);
	UE_ERRNO("short_3_bytes_efault", write(fd, "abc", 3), EFAULT);
	UE_ERRNO("zero_bytes_efault", write(fd, "", 0), EFAULT);
	UE_EQ("negative_index_einval", wr(fd, -1, NULL, 0), -EINVAL);
	memcpy(buf, &index, sizeof(index));
	UE_ERRNO("pwrite_offset_efault", pwrite(fd, buf, 4, 1), EFAULT);
	UE_ERRNO("bad_buffer_efault", write(fd, ue_bad_ptr, 8), EFAULT);

	UE_EQ("reg", ue_reg(fd, "wr_rows u32 a", &word, 0, 0, &idx), 0);
	UE_EQ("index_past_end_enoent", wr(fd, idx + 1, &payload, 4), -ENOENT);
	/* min_size is checked even while disabled. */
	UE_EQ("short_payload_einval", wr(fd, idx, &payload, 3), -EINVAL);
	UE_EQ("disabled_ebadf", wr(fd, idx, &payload, 4), -EBADF);
	UE_EQ("index_split_disabled_ebadf", wr_split(fd, idx, 1, 2, 0), -EBADF);
	UE_EQ("index_split_past_end_enoent", wr_split(fd, idx + 1, 1, 3, 0), -ENOENT);
	UE_EQ("index_split_bad_efault", wr_split(fd, idx, 1, 2, 1), -EFAULT);
	UE_EQ("enable", ue_enable("wr_rows", 1), 0);
	ue_trace_clear();
	UE_EQ("index_split_1_ok", wr_split(fd, idx, 0x1234, 1, 0), 8);
	UE_EQ("index_split_3_ok", wr_split(fd, idx, 0x4321, 3, 0), 8);
	UE_EQ("index_split_1_recorded", ue_trace_has("wr_rows: a=0x1234 (4660)"), 1);
	UE_EQ("index_split_3_recorded", ue_trace_has("wr_rows: a=0x4321 (17185)"), 1);
	UE_EQ("enabled_returns_total", wr(fd, idx, &payload, 4), 8);
	/* Bytes beyond min_size are accepted (dynamic data lives there). */
	UE_EQ("longer_payload_ok", wr(fd, idx, "12345678", 8), 12);
	UE_EQ("enabled_short_einval", wr(fd, idx, &payload, 2), -EINVAL);
	UE_EQ("enabled_bad_payload_efault", wr(fd, idx, ue_bad_ptr, 4), -EFAULT);
	not_present_payload(fd, idx);
	UE_EQ("disable", ue_enable("wr_rows", 0), 0);
	UE_EQ("disabled_again_ebadf", wr(fd, idx, &payload, 4), -EBADF);
	close(fd);
}

/* A payload of one __rel_loc or __data_loc string field and its data. */
static long loc_write(int fd, int idx, __u32 loc, const char *data,
		      size_t len)
{
	char payload[64];

	memcpy(payload, &loc, 4);
	memcpy(payload + 4, data, len);
	return wr(fd, idx, payload, 4 + len);
}

static void validators(void)
{
	int fd = ue_open_data(), h;
	__u32 rel = 0, dat = 0;

	ue_trace_clear();
	UE_EQ("val.reg_rel", ue_reg(fd, "wr_rel __rel_loc char[] s", &word, 1, 0, &rel), 0);
	UE_EQ("val.reg_data", ue_reg(fd, "wr_dat __data_loc char[] s", &word, 2, 0, &dat), 0);
	/* The record's header: 8 bytes, 12 on the 5.10 rt kernel. */
	h = ue_entry_size("wr_dat");
	UE_EQ("val.entry_size_known", h >= 8, 1);
	UE_EQ("val.rel_undersized_einval", wr(fd, rel, NULL, 0), -EINVAL);
	ue_enable("wr_rel", 1);
	ue_enable("wr_dat", 1);
	/* __rel_loc: offset from the end of the field. */
	UE_EQ("val.rel_ok", loc_write(fd, rel, DYN_LOC(0, 5), "Test", 5), 13);
	UE_EQ("val.rel_recorded", ue_trace_has("wr_rel: s=Test"), 1);
	UE_EQ("val.rel_offset_1024", loc_write(fd, rel, DYN_LOC(1024, 5), "Test", 5), -EFAULT);
	UE_EQ("val.rel_offset_1", loc_write(fd, rel, DYN_LOC(1, 5), "Test", 5), -EFAULT);
	UE_EQ("val.rel_size_plus_1", loc_write(fd, rel, DYN_LOC(0, 6), "Test", 5), -EFAULT);
	UE_EQ("val.rel_size_plus_1024", loc_write(fd, rel, DYN_LOC(0, 1029), "Test", 5), -EFAULT);
	UE_EQ("val.rel_no_nul", loc_write(fd, rel, DYN_LOC(0, 4), "Test", 4), -EFAULT);
	UE_EQ("val.rel_at_end_ok", loc_write(fd, rel, DYN_LOC(1, 4), "xTes\0", 5), 13);
	/*
	 * A string of size 0. Upstream checks the byte before the data: the
	 * loc word's top byte (0 here), or a NUL of the payload, and records
	 * a string of no bytes, which the core's string filters read past.
	 * EFAULT, as any malformed loc.
	 */
	UE_EQ("val.rel_size_0_efault", loc_write(fd, rel, DYN_LOC(0, 0), "", 0), -EFAULT);
	UE_EQ("val.rel_size_0_nul_before_efault",
	      loc_write(fd, rel, DYN_LOC(1, 0), "\0Test", 5), -EFAULT);
	/*
	 * __data_loc: offset from the record's start, header included; the
	 * data follows the header (h) and the 4-byte field.
	 */
	UE_EQ("val.data_ok", loc_write(fd, dat, DYN_LOC(h + 4, 5), "Data", 5), 13);
	UE_EQ("val.data_recorded", ue_trace_has("wr_dat: s=Data"), 1);
	UE_EQ("val.data_offset_past", loc_write(fd, dat, DYN_LOC(h + 5, 5), "Data", 5), -EFAULT);
	UE_EQ("val.data_no_nul", loc_write(fd, dat, DYN_LOC(h + 4, 4), "Data", 4), -EFAULT);
	/*
	 * A string may start in the header but not end there: its NUL
	 * would be a header byte, which the writer does not write (and the
	 * header of the module's bounce buffer is zero).
	 */
	UE_EQ("val.data_end_in_header_efault",
	      loc_write(fd, dat, DYN_LOC(0, 2), "Data", 5), -EFAULT);
	UE_EQ("val.data_empty_after_header_efault",
	      loc_write(fd, dat, DYN_LOC(h, 0), "Data", 5), -EFAULT);
	UE_EQ("val.data_from_header_ok",
	      loc_write(fd, dat, DYN_LOC(h - 2, 11), "Data", 5), 13);
	/* Size 0 past the header, a NUL before it. */
	UE_EQ("val.data_size_0_efault",
	      loc_write(fd, dat, DYN_LOC(h + 5, 0), "\0Data", 5), -EFAULT);
	UE_EQ("val.data_size_0_at_end_efault",
	      loc_write(fd, dat, DYN_LOC(h + 9, 0), "Data\0", 5), -EFAULT);
	/* The refused __rel_loc writes were not recorded (s= with nothing). */
	UE_EQ("val.rel_size_0_not_recorded", ue_trace_has("wr_rel: s=\n"), 0);
	ue_enable("wr_rel", 0);
	ue_enable("wr_dat", 0);
	close(fd);
}

/*
 * A malformed record that no consumer records is not looked at: the write
 * returns its byte count, as upstream's, whose consumers validate only
 * after their own checks (user_event_ftrace(): soft-disabled or filtered
 * out by set_event_pid, nothing is reserved or validated). A filter
 * expression is applied at commit, after validation: EFAULT there, in
 * both. The event is enabled throughout but where said.
 */
static void unrecorded(void)
{
	int fd = ue_open_data(), h;
	__u32 dat = 0;

	UE_EQ("unrec.reg", ue_reg(fd, "wr_unrec __data_loc char[] s", &word, 3, 0, &dat), 0);
	h = ue_entry_size("wr_unrec");
	ue_enable("wr_unrec", 1);
	UE_EQ("unrec.enabled_efault", loc_write(fd, dat, DYN_LOC(h + 5, 5), "Data", 5), -EFAULT);
	/* Only pid 1's events are recorded (we are not pid 1). */
	UE_EQ("unrec.pid_filter_set", ue_write_text(TRACEFS "/set_event_pid", "1", O_TRUNC), 0);
	UE_EQ("unrec.pid_filtered_count",
	      loc_write(fd, dat, DYN_LOC(h + 5, 5), "Data", 5), 13);
	UE_EQ("unrec.pid_filter_cleared", ue_write_text(TRACEFS "/set_event_pid", "", O_TRUNC), 0);
	UE_EQ("unrec.unfiltered_efault",
	      loc_write(fd, dat, DYN_LOC(h + 5, 5), "Data", 5), -EFAULT);
	/* A filter that nothing passes: checked after validation. */
	UE_EQ("unrec.filter_set",
	      ue_write_text(EVENTS "/wr_unrec/filter", "s == \"none\"", O_TRUNC), 0);
	UE_EQ("unrec.filter_efault", loc_write(fd, dat, DYN_LOC(h + 5, 5), "Data", 5), -EFAULT);
	UE_EQ("unrec.filter_cleared", ue_write_text(EVENTS "/wr_unrec/filter", "0", O_TRUNC), 0);
	/* Soft-disabled: a trigger alone attaches the event. */
	ue_enable("wr_unrec", 0);
	UE_EQ("unrec.trigger_set", ue_write_text(EVENTS "/wr_unrec/trigger", "traceon", O_TRUNC), 0);
	UE_EQ("unrec.soft_disabled_count",
	      loc_write(fd, dat, DYN_LOC(h + 5, 5), "Data", 5), 13);
	UE_EQ("unrec.soft_disabled_well_formed",
	      loc_write(fd, dat, DYN_LOC(h + 4, 5), "Data", 5), 13);
	UE_EQ("unrec.trigger_removed",
	      ue_write_text(EVENTS "/wr_unrec/trigger", "!traceon", O_TRUNC), 0);
	UE_EQ("unrec.unreg", ue_unreg(fd, &word, 3), 0);
	close(fd);
}

/* Bytes 128-159 are control characters for the kernel's isprint(). */
struct __attribute__((packed)) all_types {
	long long a; unsigned long long b; int c; unsigned int d;
	short e; unsigned short f; signed char g; unsigned char h;
	char i; unsigned char j; char k[4]; unsigned char l[3];
	__u32 m; __u32 n; unsigned char o[6]; __u32 p;
	char m_data[3]; char n_data[4]; unsigned char p_data[2];
};

static void trace_text(void)
{
	struct all_types v = {
		.a = -2, .b = 3, .c = -4, .d = 5, .e = -6, .f = 7, .g = -100,
		.h = 9, .i = 'x', .j = 150, .k = "abc", .l = "de",
		.o = { 1, 2, 3, 4, 5, 6 },
		.m_data = "hi", .n_data = "rel", .p_data = { 0xab, 0xcd },
	};
	int fd = ue_open_data();
	__u32 idx = 0;

	ue_trace_clear();
	UE_EQ("text.reg", ue_reg(fd, "wr_all s64 a;u64 b;s32 c;u32 d;s16 e;u16 f;"
				 "s8 g;u8 h;char i;unsigned char j;char[4] k;"
				 "unsigned char[3] l;__data_loc char[] m;"
				 "__rel_loc char[] n;struct blob o 6;"
				 "__rel_loc u8[] p", &word, 3, 0, &idx), 0);
	/* (__data_loc counts from the record's start: its header first) */
	v.m = DYN_LOC(offsetof(struct all_types, m_data) + ue_entry_size("wr_all"), 3);
	v.n = DYN_LOC(offsetof(struct all_types, n_data) -
		      offsetof(struct all_types, n) - 4, 4);
	v.p = DYN_LOC(offsetof(struct all_types, p_data) -
		      offsetof(struct all_types, p) - 4, 2);
	ue_enable("wr_all", 1);
	UE_EQ("text.write", wr(fd, idx, &v, sizeof(v)), 4 + (long)sizeof(v));
	ue_result("text.line", ue_trace_has(
		"wr_all: a=0xfffffffffffffffe (-2) b=0x3 (3) c=0xfffffffc (-4) "
		"d=0x5 (5) e=0xfffa (65530) f=0x7 (7) g=(156) h=(9) i='x'(120) "
		"j=(150) k=abc l=de m=hi n=rel o=<INVALID-SIZE> p=ab,cd\n"),
		"trace has no exact line for wr_all");

	UE_EQ("text.empty_reg", ue_reg(fd, "wr_empty", &word, 4, 0, &idx), 0);
	ue_enable("wr_empty", 1);
	UE_EQ("text.empty_write", wr(fd, idx, NULL, 0), 4);
	UE_EQ("text.empty_line", ue_trace_has("wr_empty:No fields found\n"), 1);
	ue_enable("wr_all", 0);
	ue_enable("wr_empty", 0);
	close(fd);
}

static void filters_and_instances(void)
{
	int fd = ue_open_data();
	__u32 idx = 0, v;
	char buf[1 << 16];

	UE_EQ("filter.reg", ue_reg(fd, "wr_filt u32 a", &word, 5, 0, &idx), 0);
	UE_EQ("filter.set", ue_write_text(EVENTS "/wr_filt/filter", "a > 5", O_TRUNC), 0);
	ue_enable("wr_filt", 1);
	ue_trace_clear();
	v = 3;
	wr(fd, idx, &v, 4);
	v = 7;
	wr(fd, idx, &v, 4);
	UE_EQ("filter.drops_3", ue_trace_has("wr_filt: a=0x3 (3)"), 0);
	UE_EQ("filter.keeps_7", ue_trace_has("wr_filt: a=0x7 (7)"), 1);
	ue_enable("wr_filt", 0);

	/* A second instance gets its own copy of each record. */
	mkdir(INSTANCE, 0755);
	UE_EQ("instance.dir", ue_exists(INSTANCE "/events/user_events/wr_filt/enable"), 1);
	UE_EQ("instance.enable", ue_write_text(INSTANCE "/events/user_events/wr_filt/enable", "1", O_TRUNC), 0);
	ue_trace_clear();
	v = 42;
	UE_EQ("instance.write", wr(fd, idx, &v, 4), 8);
	ue_read_text(INSTANCE "/trace", buf, sizeof(buf));
	UE_EQ("instance.recorded", strstr(buf, "wr_filt: a=0x2a (42)") != NULL, 1);
	UE_EQ("instance.not_in_top", ue_trace_has("wr_filt: a=0x2a"), 0);
	ue_write_text(INSTANCE "/events/user_events/wr_filt/enable", "0", O_TRUNC);
	UE_EQ("instance.disabled_ebadf", wr(fd, idx, &v, 4), -EBADF);
	close(fd);
	UE_EQ("instance.rmdir", rmdir(INSTANCE), 0);
}

/*
 * Records too big for a consumer are dropped and the write still succeeds
 * (as upstream), without a kernel warning; perf takes up to 8 KiB.
 */
static void large_records(void)
{
	static char payload[12000];
	int fd = ue_open_data(), pfd;
	__u32 idx = 0;

	UE_EQ("large.reg", ue_reg(fd, "wr_big u32 a", &word, 7, 0, &idx), 0);
	ue_enable("wr_big", 1);
	pfd = ue_perf_open("wr_big");
	UE_EQ("large.perf_open", pfd >= 0, 1);
	UE_EQ("large.6000_ok", wr(fd, idx, payload, 6000), 6004);
	UE_EQ("large.8184_ok", wr(fd, idx, payload, 8184), 8188);
	UE_EQ("large.8185_dropped_ok", wr(fd, idx, payload, 8185), 8189);
	UE_EQ("large.12000_dropped_ok", wr(fd, idx, payload, 12000), 12004);
	close(pfd);
	ue_enable("wr_big", 0);
	close(fd);
}

/* Event triggers run on user events too: traceoff stops tracing. */
static void triggers(void)
{
	int fd = ue_open_data();
	__u32 idx = 0, v = 1;
	char on[8];

	UE_EQ("trigger.reg", ue_reg(fd, "wr_trig u32 a", &word, 6, 0, &idx), 0);
	UE_EQ("trigger.set", ue_write_text(EVENTS "/wr_trig/trigger", "traceoff", O_TRUNC), 0);
	/* A trigger alone attaches the event (soft mode): writes go through. */
	UE_EQ("trigger.write", wr(fd, idx, &v, 4), 8);
	ue_read_text(TRACEFS "/tracing_on", on, sizeof(on));
	UE_STREQ("trigger.traceoff_ran", on, "0\n");
	ue_write_text(EVENTS "/wr_trig/trigger", "!traceoff", O_TRUNC);
	ue_write_text(TRACEFS "/tracing_on", "1", O_TRUNC);
	UE_EQ("trigger.removed_ebadf", wr(fd, idx, &v, 4), -EBADF);
	close(fd);
}

int main(void)
{
	ue_suite = "write";
	errno_rows();
	validators();
	unrecorded();
	trace_text();
	filters_and_instances();
	triggers();
	large_records();
	return ue_failures ? 1 : 0;
}
