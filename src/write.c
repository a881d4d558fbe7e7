// SPDX-License-Identifier: GPL-2.0
/*
 * The write path: "[u32 write_index][payload]" becomes one record
 * in every attached ftrace instance and perf event.
 *
 * It takes no lock and allocates nothing. The payload is copied from user
 * memory once, with page faults disabled, into a per-CPU buffer; validated
 * once, when the first consumer that will record it is found (a record
 * that nothing records is not looked at: the byte count, as upstream,
 * whose consumers validate after their own checks); then copied into each
 * consumer's buffer. Upstream copies and
 * validates per consumer and discards a bad record after reserving it,
 * which needs private helpers (a record reserved in the core's per-CPU
 * filter buffer is discarded through its private state); here a record that
 * fails is never reserved. The price is the kernel-to-kernel copy into the
 * consumer: 38 instructions of a 1654-instruction enabled ftrace write with
 * a 48-byte payload (make bench, measured without it); with ftrace and perf
 * both attached it saves a user copy and a validation instead.
 * Only a copy that comes up short faults the payload in and tries again.
 */
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/trace_events.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "compat/tp_funcs.h"
#include "compat/uio.h"
#include "event.h"
#include "write.h"

/*
 * Largest record (trace_entry included) a consumer can take: perf's limit
 * (PERF_MAX_TRACE_SIZE) and above a default ftrace sub-buffer's. A larger
 * write is dropped as the consumers themselves would drop it.
 */
#define UE_RECORD_MAX	PERF_MAX_TRACE_SIZE

static void __percpu *ue_record_buf;

/*
 * Whether @file takes the record: not soft-disabled and not filtered out by
 * set_event_pid (trace_trigger_soft_disabled() checks both, and runs the
 * triggers that need no record), as the kernel's own events check.
 * Upstream also drops the record while the file is not yet marked
 * EVENT_FILE_FL_ENABLED (user_event_ftrace()), but the core marks it only
 * after the register callback has flipped the enable bits: a process on
 * another CPU that writes as soon as it sees its bit lost those first
 * records (race_test ftrace-enable). Our probe is attached for this file
 * only while it is enabled, or being enabled or disabled.
 */
static bool ue_ftrace_takes(struct trace_event_file *file)
{
	return !trace_trigger_soft_disabled(file);
}

/* Whether a perf event waits for the record on this CPU. */
static bool ue_perf_takes(struct ue_event *ev)
{
	struct hlist_head *head = this_cpu_ptr(ev->call.perf_events);

	return head && !hlist_empty(head);
}

/* Whether the probe @f records the write: ftrace's or perf's, and takes it. */
static bool ue_probe_takes(struct ue_event *ev, const struct tracepoint_func *f)
{
	if (f->func == ue_probe_ftrace)
		return ue_ftrace_takes(f->data);
	return f->func == ue_probe_perf && ue_perf_takes(ev);
}

static void ue_commit_ftrace(struct trace_event_file *file, const u8 *rec,
			     u32 len)
{
	struct trace_event_buffer fbuf;
	u8 *entry;

	/* NULL when too big for the ring buffer. */
	entry = trace_event_buffer_reserve(&fbuf, file, len);
	if (!entry)
		return;
	memcpy(entry + UE_ENTRY_SIZE, rec + UE_ENTRY_SIZE, len - UE_ENTRY_SIZE);
	trace_event_buffer_commit(&fbuf);
}

static void ue_commit_perf(struct ue_event *ev, const u8 *rec, u32 len)
{
	struct hlist_head *head = this_cpu_ptr(ev->call.perf_events);
	struct pt_regs *regs;
	u8 *entry;
	int rctx;

	entry = perf_trace_buf_alloc(ALIGN(len, 8), &regs, &rctx);
	if (!entry)
		return;
	perf_fetch_caller_regs(regs);
	memcpy(entry + UE_ENTRY_SIZE, rec + UE_ENTRY_SIZE, len - UE_ENTRY_SIZE);
	perf_trace_buf_submit(entry, len, rctx, ev->call.event.type, 1, regs,
			      head, NULL);
}

/*
 * Copy, validate and commit, with preemption disabled by the caller: 0, a
 * negative errno, or 1 when a page of the payload was not present (nothing
 * recorded, @i rewound).
 *
 * _copy_from_iter(): copy_from_iter() would first have hardened usercopy
 * check the destination object, about a hundred instructions per write
 * (measured). The destination is our own per-CPU buffer and @count fits it
 * (checked by the caller).
 */
static int ue_write_record(struct ue_event *ev, struct iov_iter *i,
			   size_t count)
{
	u32 len = UE_ENTRY_SIZE + count;
	bool valid = !ev->fields.nr_validators;
	struct tracepoint_func *f;
	u8 *rec = this_cpu_ptr(ue_record_buf);
	size_t copied;

	pagefault_disable();
	copied = _copy_from_iter(rec + UE_ENTRY_SIZE, count, i);
	pagefault_enable();
	if (copied != count) {
		iov_iter_revert(i, copied);
		return 1;
	}

	f = ue_tp_funcs(&ev->tp);
	for (; f && f->func; f++) {
		if (!ue_probe_takes(ev, f))
			continue;
		if (!valid) {
			if (ue_validate(&ev->fields, rec, len))
				return -EFAULT;
			valid = true;
		}
		if (f->func == ue_probe_ftrace)
			ue_commit_ftrace(f->data, rec, len);
		else
			ue_commit_perf(ev, rec, len);
	}
	return 0;
}

static int ue_write_once(struct ue_event *ev, struct iov_iter *i, size_t count)
{
	struct ue_tp_reader r;
	int ret;

	ue_tp_read_lock(&r);
	ret = ue_write_record(ev, i, count);
	ue_tp_read_unlock(&r);
	return ret;
}

int ue_write_enabled(struct ue_event *ev, struct iov_iter *i)
{
	size_t count = iov_iter_count(i);
	int ret;

	if (UE_ENTRY_SIZE + count > UE_RECORD_MAX)
		return ue_iter_fault_in(i) ? 0 : -EFAULT;
	/*
	 * The payload is normally present: copy first, and fault it in only
	 * when that copy comes up short (upstream faults in every write,
	 * about a hundred instructions, measured). A page gone again by the
	 * second copy is -EFAULT, as upstream's copy after its fault-in.
	 */
	ret = ue_write_once(ev, i, count);
	if (ret <= 0)
		return ret;
	if (!ue_iter_fault_in(i))
		return -EFAULT;
	ret = ue_write_once(ev, i, count);
	return ret > 0 ? -EFAULT : ret;
}

int ue_write_init(void)
{
	ue_record_buf = __alloc_percpu(UE_RECORD_MAX, 8);
	return ue_record_buf ? 0 : -ENOMEM;
}

void ue_write_exit(void)
{
	free_percpu(ue_record_buf);
}
