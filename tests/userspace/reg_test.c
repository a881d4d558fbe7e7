// SPDX-License-Identifier: GPL-2.0
/*
 * DIAG_IOCSREG: each check with its errno, in the order upstream makes them
 * (user_reg_get(), then user_events_ioctl_reg() and user_event_parse() in
 * kernel/trace/trace_events_user.c), numbered 1 to 21 in that order as the
 * cases' "rowN" names are; write_index rules; the event directory; matching;
 * deletion of an event when the last file using it closes. The enable-bit
 * checks (10: the same address and bit again; 20, 21: the enabler and its
 * first write) belong to the enabler suite.
 */
#include <sys/mman.h>

#include "ue_abi.h"

static __u32 word;

/* A user_reg with sane defaults for the check under test. */
static struct user_reg base_reg(const char *cmd)
{
	struct user_reg reg = {
		.size = sizeof(reg),
		.enable_bit = 0,
		.enable_size = 4,
		.enable_addr = (__u64)(uintptr_t)&word,
		.name_args = (__u64)(uintptr_t)cmd,
	};

	return reg;
}

static void rows_1_to_9(int fd)
{
	struct user_reg reg;
	unsigned char big[64] = { 0 };
	__u64 word8 __attribute__((aligned(8))) = 0;
	long page = sysconf(_SC_PAGESIZE);
	char *map;

	/* 1: the size itself is unreadable. */
	UE_ERRNO("row1.size_fault", ioctl(fd, DIAG_IOCSREG, (void *)8), EFAULT);

	/* 2, 3: size bounds. */
	reg = base_reg("reg_rows u32 a");
	reg.size = page + 1;
	UE_ERRNO("row2.size_gt_page_e2big", ioctl(fd, DIAG_IOCSREG, &reg), E2BIG);
	reg.size = 27;
	UE_ERRNO("row3.size_lt_28_einval", ioctl(fd, DIAG_IOCSREG, &reg), EINVAL);
	reg.size = 0;
	UE_ERRNO("row3.size_0_einval", ioctl(fd, DIAG_IOCSREG, &reg), EINVAL);

	/* 4: a larger struct must be zero past byte 28, and readable. */
	reg = base_reg("reg_rows u32 a");
	memcpy(big, &reg, sizeof(reg));
	((struct user_reg *)big)->size = sizeof(big);
	big[40] = 1;
	UE_ERRNO("row4.nonzero_tail_e2big", ioctl(fd, DIAG_IOCSREG, big), E2BIG);
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(map + page, page);
	reg.size = 64;
	memcpy(map + page - sizeof(reg), &reg, sizeof(reg));
	UE_ERRNO("row4.tail_fault_efault",
		 ioctl(fd, DIAG_IOCSREG, map + page - sizeof(reg)), EFAULT);
	munmap(map, page);

	/* 5: unknown flags. */
	reg = base_reg("reg_rows u32 a");
	reg.flags = USER_EVENT_REG_MAX;
	UE_ERRNO("row5.flag_bit2_einval", ioctl(fd, DIAG_IOCSREG, &reg), EINVAL);
	reg.flags = 1 << 15;
	UE_ERRNO("row5.flag_bit15_einval", ioctl(fd, DIAG_IOCSREG, &reg), EINVAL);
	UE_EQ("row5.no_event_created", ue_exists(EVENTS "/reg_rows"), 0);

	/* 6: enable_size is 4 or 8. */
	for (int size = 0; size <= 16; size++) {
		char name[48];

		if (size == 4 || size == 8)
			continue;
		reg = base_reg("reg_rows u32 a");
		reg.enable_size = size;
		reg.enable_addr = (__u64)(uintptr_t)&word8;
		snprintf(name, sizeof(name), "row6.enable_size_%d_einval", size);
		UE_ERRNO(name, ioctl(fd, DIAG_IOCSREG, &reg), EINVAL);
	}

	/* 7: natural alignment. */
	reg = base_reg("reg_rows u32 a");
	reg.enable_addr = (__u64)(uintptr_t)&word8 + 2;
	UE_ERRNO("row7.size4_misaligned_einval", ioctl(fd, DIAG_IOCSREG, &reg), EINVAL);
	reg.enable_size = 8;
	reg.enable_addr = (__u64)(uintptr_t)&word8 + 4;
	UE_ERRNO("row7.size8_misaligned_einval", ioctl(fd, DIAG_IOCSREG, &reg), EINVAL);

	/* 8: the bit fits the word. */
	reg = base_reg("reg_rows u32 a");
	reg.enable_bit = 32;
	UE_ERRNO("row8.size4_bit32_einval", ioctl(fd, DIAG_IOCSREG, &reg), EINVAL);
	reg.enable_size = 8;
	reg.enable_addr = (__u64)(uintptr_t)&word8;
	reg.enable_bit = 64;
	UE_ERRNO("row8.size8_bit64_einval", ioctl(fd, DIAG_IOCSREG, &reg), EINVAL);

	/* 9: a kernel address is not user memory. */
	reg = base_reg("reg_rows u32 a");
	reg.enable_addr = 0xffff888000000000ULL;
	UE_ERRNO("row9.kernel_addr_efault", ioctl(fd, DIAG_IOCSREG, &reg), EFAULT);
}

static void rows_11_to_16(int fd)
{
	char cmd[600], path[400];
	struct user_reg reg;
	__u32 idx;
	int i;

	/* 11: the command string. */
	reg = base_reg("x");
	reg.name_args = 8;
	UE_ERRNO("row11.name_fault_efault", ioctl(fd, DIAG_IOCSREG, &reg), EFAULT);
	memset(cmd, 'a', 512);
	cmd[512] = '\0';
	reg.name_args = (__u64)(uintptr_t)cmd;
	UE_ERRNO("row11.no_nul_in_512_einval", ioctl(fd, DIAG_IOCSREG, &reg), EINVAL);
	/* 511 characters is the longest command: a name and many fields. */
	strcpy(cmd, "reg_long");
	for (i = 0; strlen(cmd) + 10 <= 511; i++)
		sprintf(cmd + strlen(cmd), "%su8 f%03d", i ? ";" : " ", i);
	while (strlen(cmd) < 511)
		strcat(cmd, ";");
	UE_EQ("row11.cmd_511_len", strlen(cmd), 511);
	UE_EQ("row11.cmd_511_ok", ue_reg(fd, cmd, &word, 1, 0, &idx), 0);
	/* A 255-character name is a valid directory name. */
	memset(cmd, 'n', 255);
	cmd[255] = '\0';
	UE_EQ("row11.name_255_ok", ue_reg(fd, cmd, &word, 2, 0, &idx), 0);
	snprintf(path, sizeof(path), EVENTS "/%s/format", cmd);
	UE_EQ("row11.name_255_dir", ue_exists(path), 1);

	/* 12: "name:flags" is not supported. */
	UE_ERRNO("row12.colon_in_name_einval",
		 ue_reg(fd, "reg_flags:x u32 a", &word, 0, 0, NULL), EINVAL);
	UE_ERRNO("row12.colon_only_einval",
		 ue_reg(fd, "reg_flags:", &word, 0, 0, NULL), EINVAL);

	/* 15: same name, other fields. */
	UE_EQ("row15.first_ok", ue_reg(fd, "reg_clash u32 a", &word, 3, 0, NULL), 0);
	UE_ERRNO("row15.other_fields_eaddrinuse",
		 ue_reg(fd, "reg_clash u64 a", &word, 4, 0, NULL), EADDRINUSE);
	UE_ERRNO("row15.no_fields_eaddrinuse",
		 ue_reg(fd, "reg_clash", &word, 4, 0, NULL), EADDRINUSE);
	/* Clash is judged before the grammar (15 before 16). */
	UE_ERRNO("row15.before_grammar",
		 ue_reg(fd, "reg_clash u32  bad", &word, 4, 0, NULL), EADDRINUSE);

	/* 16: grammar errors. */
	static const char *const bad[] = {
		"reg_bad long a", "reg_bad unsigned long a", "reg_bad bool a",
		"reg_bad pid_t a", "reg_bad u32", "reg_bad u32 a 4",
		"reg_bad u32  a", "reg_bad u32 a ;u32 b", "reg_bad char[] a",
		"reg_bad char[0] a", "reg_bad char[1025] a", "reg_bad char[aa] a",
		"reg_bad char[0x0000000000001] a", "reg_bad char[20 a",
		"reg_bad struct foo a", "reg_bad struct foo a 0",
		"reg_bad struct foo a 0x10", "reg_bad u32 a b c",
		"reg_bad unsigned a", "reg_bad __data_loc", "reg_bad x y",
	};
	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		char name[80];

		snprintf(name, sizeof(name), "row16.grammar_%02d_einval", i);
		UE_ERRNO(name, ue_reg(fd, bad[i], &word, 5, 0, NULL), EINVAL);
	}
	UE_EQ("row16.no_event_left", ue_exists(EVENTS "/reg_bad"), 0);
}

static void indices_and_dirs(void)
{
	static const char *const files[] = {
		"enable", "filter", "format", "id", "trigger",
	};
	int fd1 = ue_open_data(), fd2 = ue_open_data();
	__u32 i1 = 99, i2 = 99, i3 = 99, i4 = 99, i5 = 99;
	char path[256], name[64];
	size_t k;

	UE_EQ("index.first_is_0", ue_reg(fd1, "reg_idx_a u32 a", &word, 0, 0, &i1), 0);
	UE_EQ("index.first_value", i1, 0);
	/* The same event again, another bit: the same index. */
	UE_EQ("index.same_event", ue_reg(fd1, "reg_idx_a u32 a", &word, 1, 0, &i2), 0);
	UE_EQ("index.same_event_value", i2, 0);
	UE_EQ("index.second_event", ue_reg(fd1, "reg_idx_b", &word, 2, 0, &i3), 0);
	UE_EQ("index.second_event_value", i3, 1);
	/* Indices are per open file. */
	UE_EQ("index.other_fd", ue_reg(fd2, "reg_idx_b", &word, 3, 0, &i4), 0);
	UE_EQ("index.other_fd_value", i4, 0);

	/* The directory is there when the ioctl returns. */
	for (k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		snprintf(path, sizeof(path), EVENTS "/reg_idx_a/%s", files[k]);
		snprintf(name, sizeof(name), "dir.%s", files[k]);
		UE_EQ(name, ue_exists(path), 1);
	}

	/* Matching tolerates ';' spacing. */
	UE_EQ("match.setup", ue_reg(fd1, "reg_m u32 a; u32 b", &word, 4, 0, &i5), 0);
	UE_EQ("match.no_space", ue_reg(fd1, "reg_m u32 a;u32 b", &word, 5, 0, &i1), 0);
	UE_EQ("match.no_space_index", i1, i5);
	UE_EQ("match.trailing_semi", ue_reg(fd1, "reg_m u32 a; u32 b;", &word, 6, 0, &i1), 0);
	UE_EQ("match.trailing_semi_index", i1, i5);
	UE_ERRNO("match.order", ue_reg(fd1, "reg_m u32 b; u32 a", &word, 7, 0, NULL), EADDRINUSE);
	UE_ERRNO("match.name", ue_reg(fd1, "reg_m u32 a; u32 c", &word, 7, 0, NULL), EADDRINUSE);
	UE_ERRNO("match.type", ue_reg(fd1, "reg_m u32 a; s32 b", &word, 7, 0, NULL), EADDRINUSE);
	UE_ERRNO("match.fewer", ue_reg(fd1, "reg_m u32 a", &word, 7, 0, NULL), EADDRINUSE);
	UE_EQ("match.struct_setup", ue_reg(fd1, "reg_s struct x a 8", &word, 8, 0, NULL), 0);
	UE_ERRNO("match.struct_size",
		 ue_reg(fd1, "reg_s struct x a 9", &word, 9, 0, NULL), EADDRINUSE);
	UE_ERRNO("match.struct_name",
		 ue_reg(fd1, "reg_s struct y a 8", &word, 9, 0, NULL), EADDRINUSE);

	/*
	 * Events go when nothing uses them any more: here the enablers go
	 * first, then the files.
	 */
	for (k = 0; k <= 8; k++)
		if (k != 3 && k != 7)
			ue_unreg(fd1, &word, k);
	close(fd1);
	UE_EQ("autodelete.still_used_by_fd2", ue_exists(EVENTS "/reg_idx_b"), 1);
	UE_EQ("autodelete.only_fd1", ue_exists(EVENTS "/reg_idx_a"), 0);
	UE_EQ("autodelete.match_events", ue_exists(EVENTS "/reg_m"), 0);
	ue_unreg(fd2, &word, 3);
	UE_EQ("autodelete.kept_by_fd2", ue_exists(EVENTS "/reg_idx_b"), 1);
	close(fd2);
	UE_EQ("autodelete.last_fd", ue_exists(EVENTS "/reg_idx_b"), 0);
}

static void rows(void)
{
	int fd = ue_open_data();

	rows_1_to_9(fd);
	rows_11_to_16(fd);
	close(fd);
}

/*
 * Names tracefs can make no directory for (lookup_one_len() refuses "",
 * ".", "..", a '/' and names longer than NAME_MAX): upstream registers the
 * event all the same, without a directory, and so must we (0, not ENOMEM,
 * on every kernel). Run in a child, twice: its exit deletes them, and
 * they are made anew.
 */
static int dirless_round;

static void dirless_names(void)
{
	static const char *const cmds[] = {
		" u32 a", ". u32 a", ".. u32 a", "reg_d5/x u32 a",
	};
	char cmd[300], name[64];
	int fd = ue_open_data();
	size_t k;

	for (k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
		snprintf(name, sizeof(name), "dirless.%d.%zu_ok", dirless_round, k);
		UE_EQ(name, ue_reg(fd, cmds[k], &word, (int)k, 0, NULL), 0);
	}
	memset(cmd, 'n', 256);
	strcpy(cmd + 256, " u32 a");
	snprintf(name, sizeof(name), "dirless.%d.name_256_ok", dirless_round);
	UE_EQ(name, ue_reg(fd, cmd, &word, 8, 0, NULL), 0);
	close(fd);
}

/*
 * A kprobe event of our group and an event's name, made first: the core
 * cannot make the user event's directory (it is the kprobe's), and the
 * registration succeeds without one, as upstream's; the user event's
 * deletion (its process's exit) leaves the kprobe's directory whole (its
 * format readable: before eventfs, the module once took the call out of
 * that format file).
 */
static void kprobe_user_event(void)
{
	int fd = ue_open_data();

	UE_EQ("kprobe.user_event_ok", ue_reg(fd, "reg_kp u32 a", &word, 0, 0, NULL), 0);
	close(fd);
}

static void kprobe_same_name(void)
{
	char buf[4096];

	if (ue_write_text(TRACEFS "/kprobe_events", "p:user_events/reg_kp vfs_read",
			  O_APPEND)) {
		ue_result("kprobe.made", 0, strerror(errno));
		return;
	}
	ue_in_child(kprobe_user_event);
	UE_EQ("kprobe.format_after_delete",
	      ue_read_text(EVENTS "/reg_kp/format", buf, sizeof(buf)) > 0, 1);
	UE_EQ("kprobe.format_names_it", strstr(buf, "name: reg_kp\n") != NULL, 1);
	UE_EQ("kprobe.removed", ue_write_text(TRACEFS "/kprobe_events", "-:user_events/reg_kp",
					      O_APPEND), 0);
}

int main(void)
{
	int fd;

	ue_suite = "reg";
	/* The process's exit releases what the rows registered. */
	ue_in_child(rows);
	UE_EQ("rows.cleaned_up_by_exit", ue_exists(EVENTS "/reg_clash"), 0);
	UE_EQ("rows.long_cleaned_up_by_exit", ue_exists(EVENTS "/reg_long"), 0);
	indices_and_dirs();
	for (dirless_round = 1; dirless_round <= 2; dirless_round++)
		ue_in_child(dirless_names);
	kprobe_same_name();
	/* An O_RDONLY descriptor registers too: ioctl ignores f_mode. */
	fd = open(TRACEFS "/user_events_data", O_RDONLY);
	UE_EQ("rdonly_fd_registers", ue_reg(fd, "reg_ro u32 a", &word, 0, 0, NULL), 0);
	close(fd);
	return ue_failures ? 1 : 0;
}
