// SPDX-License-Identifier: GPL-2.0
/*
 * user_events_data: the registration ioctls and write()/writev()
 * (user_events.rst: Registering, Deleting, Unregistering, Writing Data).
 *
 * Each open file has its own array of the events registered through it; a
 * write index is a position in that array. The array only grows, under
 * ue_reg_mutex: an event goes in a free slot and is then counted (a release
 * store), and a full array is replaced by one twice its size, published
 * with RCU, so the write path reads it without a lock. Upstream replaces
 * the array by a copy one longer on every registration: registering n
 * events through one file copies n^2/2 pointers and makes n allocations of
 * up to 8n bytes (64000 events took over 280 s under TCG).
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "compat/uio.h"
#include "enabler.h"
#include "event.h"
#include "files.h"
#include "race.h"
#include "ue.h"
#include "write.h"

struct ue_refs {
	struct rcu_head		rcu;
	u32			count;		/* slots in use */
	u32			size;		/* slots */
	struct ue_event		*events[];
};

struct ue_file {
	struct ue_refs __rcu	*refs;
};

/* The event at @index of this file, or NULL. */
static struct ue_event *ue_file_event(struct ue_file *info, int index)
{
	struct ue_event *ev = NULL;
	struct ue_refs *refs;

	rcu_read_lock_sched();
	refs = rcu_dereference_sched(info->refs);
	/* (the count is stored after its slot: ue_file_ref_add) */
	if (refs && index < smp_load_acquire(&refs->count))
		ev = refs->events[index];
	rcu_read_unlock_sched();
	/* The file holds a reference until release, which cannot race a write. */
	return ev;
}

/*
 * The write index of @ev on this file, adding it (with its own reference)
 * if it is new there. Indices are never reused, as upstream's
 * user_events_ref_add().
 */
static int ue_file_ref_add(struct ue_file *info, struct ue_event *ev)
{
	struct ue_refs *old, *new;
	u32 i, count, size;

	lockdep_assert_held(&ue_reg_mutex);
	old = rcu_dereference_protected(info->refs,
					lockdep_is_held(&ue_reg_mutex));
	count = old ? old->count : 0;
	for (i = 0; i < count; i++)
		if (old->events[i] == ev)
			return i;

	if (old && count < old->size) {
		old->events[count] = ue_event_get(ev);
		/* A writer that sees the count sees the slot. */
		smp_store_release(&old->count, count + 1);
		return count;
	}
	size = count ? 2 * count : 4;
	new = kmalloc(struct_size(new, events, size), GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;
	if (count)
		memcpy(new->events, old->events, count * sizeof(*old->events));
	new->events[count] = ue_event_get(ev);
	new->count = count + 1;
	new->size = size;
	rcu_assign_pointer(info->refs, new);
	if (old)
		kfree_rcu(old, rcu);
	return count;
}

/*
 * The size that starts a DIAG_IOCSREG or DIAG_IOCSUNREG argument, checked
 * as upstream's user_reg_get() and user_unreg_get() do: readable, at most a
 * page, and at least @min bytes.
 */
static int ue_arg_size(const u32 __user *usize, size_t min, u32 *size)
{
	if (get_user(*size, usize))
		return -EFAULT;
	if (*size > PAGE_SIZE)
		return -E2BIG;
	if (*size < min)
		return -EINVAL;
	return 0;
}

/* DIAG_IOCSREG argument checks, in the order of upstream's user_reg_get(). */
static int ue_reg_get(struct user_reg __user *ureg, struct user_reg *kreg)
{
	u32 size;
	int ret;

	ret = ue_arg_size(&ureg->size, offsetofend(struct user_reg, write_index),
			  &size);
	if (ret)
		return ret;
	ret = copy_struct_from_user(kreg, sizeof(*kreg), ureg, size);
	if (ret)
		return ret;
	if (kreg->flags & ~(USER_EVENT_REG_MAX - 1))
		return -EINVAL;
	switch (kreg->enable_size) {
	case 4:
		break;
	case 8:
		if (BITS_PER_LONG >= 64)
			break;
		fallthrough;
	default:
		return -EINVAL;
	}
	if (kreg->enable_addr % kreg->enable_size)
		return -EINVAL;
	if (kreg->enable_bit > kreg->enable_size * BITS_PER_BYTE - 1)
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(kreg->enable_addr), kreg->enable_size))
		return -EFAULT;
	kreg->size = size;
	return 0;
}

/*
 * ue_reg_mutex is never held across a fault on user memory, which may wait
 * on user space for ever (a userfaultfd nobody answers, a FUSE daemon that
 * hangs): one stuck process would stop every registration on the machine
 * and every fork of a traced process (upstream holds its reg_mutex across
 * them). The ioctl's arguments are copied before it is taken, the index is
 * stored after, and an enable word that is not present (@err -EFAULT) is
 * faulted in with the mutex dropped (here; 0 or -EFAULT), its page pinned in
 * *@pin until the caller has tried again (so that a fork() meanwhile leaves
 * it writable; the caller unpins).
 *
 * Nor is it held while waiting for current's mmap lock, which a reader can
 * hold while it waits on user space (a read of /proc/PID/mem faulting in a
 * page of a FUSE file whose daemon hangs), with a writer (mmap()) queued
 * behind it that every later reader waits for; upstream waits for it
 * under its reg_mutex and event_mutex, and so stops every registration and
 * every ftrace and perf attach on the machine. The word is written under a
 * trylock; where the lock is taken (@err -EBUSY), it is waited for here, with
 * no lock held, then tried again. Those rounds are not counted: each waits
 * for the lock, and only this thread, of the process whose lock it is, waits.
 */
static int ue_fix_unlocked(int err, u64 addr, u8 bit, bool word32,
			   struct page **pin)
{
	int ret;

	lockdep_assert_held(&ue_reg_mutex);
	mutex_unlock(&ue_reg_mutex);
	ue_enabler_unpin(pin);
	if (err == -EBUSY)
		ret = ue_enabler_wait_mm();
	else
		ret = ue_enabler_fault_in_pin(addr, bit, word32, pin) ?
		      -EFAULT : 0;
	if (!ret && *pin)
		ue_race_window(UE_RACE_REFAULT, false);
	mutex_lock(&ue_reg_mutex);
	return ret;
}

/* The bit a DIAG_IOCSREG writes, or a DIAG_IOCSUNREG clears. */
struct ue_bit_call {
	struct ue_event		*ev;	/* registering it; NULL: unregistering */
	const struct user_reg	*reg;	/* registering */
	u64			addr;
	u8			bit;
	bool			word32;
};

/* One try at the call's write, ue_reg_mutex held. */
static int ue_bit_try(const struct ue_bit_call *c)
{
	bool taken = ue_enabler_exists(c->addr, c->bit);

	/* Another thread may have taken the bit since the last try. */
	if (c->ev)
		return taken ? -EADDRINUSE : ue_enabler_create(c->ev, c->reg);
	/* Registered again meanwhile: that wrote the bit's state. */
	return taken ? 0 : ue_enabler_clear(c->addr, c->bit, c->word32);
}

/*
 * The call's write, in rounds, ue_reg_mutex held: what stopped a try is
 * fixed with the mutex dropped (ue_fix_unlocked()), and the call tries
 * again. A taken mmap lock is waited for and not counted; a fault-in is
 * counted, UE_FAULT_ATTEMPTS rounds at most. A word faulted in stays
 * pinned until the next try, so that a fork() meanwhile leaves it writable.
 */
static int ue_bit_rounds(const struct ue_bit_call *c)
{
	struct page *pin = NULL;
	int ret, i;

	ret = ue_bit_try(c);
	for (i = 0; ret == -EBUSY ||
	     (ret == -EFAULT && i < UE_FAULT_ATTEMPTS);) {
		if (ret != -EBUSY)
			i++;
		ret = ue_fix_unlocked(ret, c->addr, c->bit, c->word32, &pin);
		if (ret)
			break;
		ret = ue_bit_try(c);
	}
	ue_enabler_unpin(&pin);
	if (ret == -EFAULT)
		ue_race_bit_failed(c->ev ? "DIAG_IOCSREG" : "DIAG_IOCSUNREG",
				   ret, i);
	return ret;
}

static long ue_ioctl_reg(struct ue_file *info, struct user_reg __user *ureg)
{
	struct user_reg reg;
	struct ue_event *ev;
	int index, ret;
	char *cmd;

	ret = ue_reg_get(ureg, &reg);
	if (ret)
		return ret;
	cmd = strndup_user(u64_to_user_ptr(reg.name_args), UE_MAX_CMD);
	mutex_lock(&ue_reg_mutex);
	/* The errors in upstream's order: the bit before the command. */
	if (ue_enabler_exists(reg.enable_addr, reg.enable_bit)) {
		ret = -EADDRINUSE;
		goto unlock;
	}
	if (IS_ERR(cmd)) {
		ret = PTR_ERR(cmd);
		goto unlock;
	}
	ev = ue_event_find_or_create(cmd, reg.flags);
	cmd = NULL;
	if (IS_ERR(ev)) {
		ret = PTR_ERR(ev);
		goto unlock;
	}
	index = ue_file_ref_add(info, ev);
	/* On a failed write the file keeps the event, as upstream. */
	if (index < 0) {
		ret = index;
	} else {
		struct ue_bit_call c = {
			.ev = ev, .reg = &reg, .addr = reg.enable_addr,
			.bit = reg.enable_bit, .word32 = reg.enable_size == 4,
		};

		ret = ue_bit_rounds(&c);
	}
	ue_event_put(ev, false);
unlock:
	if (ret)
		ue_enabler_reg_failed();
	mutex_unlock(&ue_reg_mutex);
	if (!IS_ERR_OR_NULL(cmd))
		kfree(cmd);
	if (ret)
		return ret;
	/* A fault here is ignored, as upstream: the event is registered. */
	ret = put_user((u32)index, &ureg->write_index);
	return 0;
}

static long ue_ioctl_del(char __user *uname)
{
	char *name;
	int ret;

	/* Copied before ue_reg_mutex, as in ue_ioctl_reg(). */
	name = strndup_user(uname, UE_MAX_CMD);
	if (IS_ERR(name))
		return PTR_ERR(name);
	mutex_lock(&ue_reg_mutex);
	ret = ue_event_delete(name);
	mutex_unlock(&ue_reg_mutex);
	kfree(name);
	return ret;
}

/* DIAG_IOCSUNREG argument checks, as upstream's user_unreg_get(). */
static int ue_unreg_get(struct user_unreg __user *ureg,
			struct user_unreg *kreg)
{
	u32 size;
	int ret;

	ret = ue_arg_size(&ureg->size,
			  offsetofend(struct user_unreg, disable_addr), &size);
	if (ret)
		return ret;
	ret = copy_struct_from_user(kreg, sizeof(*kreg), ureg, size);
	/* Reserved fields are checked before the copy's error is returned. */
	if (kreg->__reserved || kreg->__reserved2)
		return -EINVAL;
	return ret;
}

/* Faults as in ue_ioctl_reg(): never with ue_reg_mutex held. */
static long ue_ioctl_unreg(struct user_unreg __user *ureg)
{
	struct user_unreg unreg = {};
	struct ue_bit_call c = {};
	int ret;

	ret = ue_unreg_get(ureg, &unreg);
	if (ret)
		return ret;
	c.addr = unreg.disable_addr;
	c.bit = unreg.disable_bit;
	mutex_lock(&ue_reg_mutex);
	ret = ue_enabler_unregister(c.addr, c.bit, &c.word32);
	/* Cleared whatever the event's state, as upstream. */
	if (!ret)
		ret = ue_bit_rounds(&c);
	mutex_unlock(&ue_reg_mutex);
	return ret;
}

static long ue_data_ioctl(struct file *file, unsigned int cmd,
			  unsigned long uarg)
{
	struct ue_file *info = file->private_data;
	void __user *arg = (void __user *)uarg;

	switch (cmd) {
	case DIAG_IOCSREG:
		return ue_ioctl_reg(info, arg);
	case DIAG_IOCSDEL:
		return ue_ioctl_del(arg);
	case DIAG_IOCSUNREG:
		return ue_ioctl_unreg(arg);
	default:
		return -ENOTTY;
	}
}

/*
 * Read the write index that starts @i: 0 or -EFAULT. It normally lies in
 * the first user segment, where one get_user() reads it; copy_from_iter()
 * costs about 40 instructions more on every write, enabled or not
 * (measured), and remains for an index split across iovecs.
 */
static int ue_read_index(struct iov_iter *i, int *index)
{
	const int __user *head = ue_iter_user_head(i, sizeof(*index));

	if (!head)
		return copy_from_iter(index, sizeof(*index), i) == sizeof(*index) ?
		       0 : -EFAULT;
	if (get_user(*index, head))
		return -EFAULT;
	iov_iter_advance(i, sizeof(*index));
	return 0;
}

static ssize_t ue_data_write_core(struct file *file, struct iov_iter *i)
{
	struct ue_file *info = file->private_data;
	size_t total = iov_iter_count(i);
	struct ue_event *ev;
	int index, ret;

	if (ue_read_index(i, &index))
		return -EFAULT;
	if (index < 0)
		return -EINVAL;
	ev = ue_file_event(info, index);
	if (!ev)
		return -ENOENT;
	ret = ue_write_event(ev, i);
	return ret ? ret : total;
}

static ssize_t ue_data_write_iter(struct kiocb *kiocb, struct iov_iter *i)
{
	return ue_data_write_core(kiocb->ki_filp, i);
}

/* write() at a non-zero position is -EFAULT, as upstream. */
static ssize_t ue_data_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct iov_iter i;
	struct iovec iov;

	if (*ppos != 0)
		return -EFAULT;
	if (ue_import_ubuf(ubuf, count, &iov, &i))
		return -EFAULT;
	return ue_data_write_core(file, &i);
}

static int ue_data_open(struct inode *inode, struct file *file)
{
	struct ue_file *info = kzalloc(sizeof(*info), GFP_KERNEL_ACCOUNT);

	if (!info)
		return -ENOMEM;
	file->private_data = info;
	return 0;
}

static int ue_data_release(struct inode *inode, struct file *file)
{
	struct ue_file *info = file->private_data;
	struct ue_refs *refs;
	u32 i;

	mutex_lock(&ue_reg_mutex);
	refs = rcu_dereference_protected(info->refs,
					 lockdep_is_held(&ue_reg_mutex));
	/*
	 * Newest first: each put may remove an event, and the core adds an
	 * event's file at the head of each trace instance's list and looks
	 * for it from the head when removing it (6.12). Oldest first, every
	 * removal walked past all the file's newer events: closing a file
	 * holding 64000 events took over 300 s under TCG on Debian 13.
	 */
	for (i = refs ? refs->count : 0; i > 0; i--)
		ue_event_put(refs->events[i - 1], false);
	mutex_unlock(&ue_reg_mutex);
	/* Nothing can be writing to a file being released. */
	kfree(refs);
	kfree(info);
	return 0;
}

/*
 * .owner pins the module while the file is open: tracefs installs these
 * operations on the inode, and open takes a reference on their owner.
 * Like upstream: no read, no llseek, no compat_ioctl.
 */
const struct file_operations ue_data_fops = {
	.owner		= THIS_MODULE,
	.open		= ue_data_open,
	.write		= ue_data_write,
	.write_iter	= ue_data_write_iter,
	.unlocked_ioctl	= ue_data_ioctl,
	.release	= ue_data_release,
};
