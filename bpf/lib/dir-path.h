/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The directory a relative path is relative to: the caller's working directory, or the directory
 * its dirfd names, read at the syscall's entry by walking dentries up to the root, across mounts.
 * Written leaf first: each component NUL-terminated, the root's last; user space reverses them
 * (src/sensor/dir-path.ts). fentry and LSM hooks would hand a resolved path (bpf_d_path), but
 * they need BPF trampolines, which locked-down kernels refuse.
 */
#ifndef PROVD_DIR_PATH_H
#define PROVD_DIR_PATH_H

#include "emit.h"

#define BASE_DEPTH 32
#define AT_FDCWD_VALUE -100

/* the mount a vfsmount is embedded in */
static __always_inline struct mount *mount_of(struct vfsmount *vfsmnt)
{
	return (struct mount *)((void *)vfsmnt - bpf_core_field_offset(struct mount, mnt));
}

/* the path `dirfd` names in the current task: its working directory for AT_FDCWD */
static __always_inline struct path *dir_of(int dirfd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	if (dirfd == AT_FDCWD_VALUE)
		return &BPF_CORE_READ(task, fs)->pwd;
	struct file **fds = BPF_CORE_READ(task, files, fdt, fd);
	unsigned int max = BPF_CORE_READ(task, files, fdt, max_fds);
	struct file *file = 0;
	if (dirfd < 0 || (unsigned int)dirfd >= max || bpf_probe_read_kernel(&file, sizeof(file), fds + dirfd) != 0 || !file)
		return 0;
	return (struct path *)&file->f_path;
}

/*
 * Writes the path `at` into `base` (BASE_BYTES), leaf first; its length. A path deeper than
 * BASE_DEPTH or longer than BASE_BYTES, or none, is flagged RECORD_BASE_CUT.
 */
static __always_inline __u32 read_path(struct event_header *header, char *base, struct path *at)
{
	if (!at) {
		header->flags |= RECORD_BASE_CUT;
		return 0;
	}
	struct dentry *dentry = BPF_CORE_READ(at, dentry);
	struct vfsmount *vfsmnt = BPF_CORE_READ(at, mnt);
	struct mount *mnt = mount_of(vfsmnt);
	__u32 size = 0;
	for (int i = 0; i < BASE_DEPTH; i++) {
		if (dentry == BPF_CORE_READ(vfsmnt, mnt_root)) { /* the top of its mount: on to where it is mounted */
			struct mount *up = BPF_CORE_READ(mnt, mnt_parent);
			if (up == mnt)
				return size; /* the root mount */
			dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
			mnt = up;
			vfsmnt = &up->mnt;
			continue;
		}
		struct dentry *parent = BPF_CORE_READ(dentry, d_parent);
		if (size >= BASE_BYTES)
			break;
		__u32 at = size;
		asm volatile("" : "+r"(at)); /* keep the mask below: it is what bounds the offset for the verifier */
		at &= BASE_BYTES - 1;
		long read = bpf_probe_read_kernel_str(base + at, BASE_BYTES - at, BPF_CORE_READ(dentry, d_name.name));
		if (read <= 0)
			break;
		size = at + (__u32)read;
		/*
		 * its own parent, yet no mount's top: a file of an internal mount (a memfd, whose name was
		 * just read), or a filesystem root another namespace mounted
		 */
		if (dentry == parent)
			return size;
		dentry = parent;
	}
	header->flags |= RECORD_BASE_CUT;
	return size > BASE_BYTES ? BASE_BYTES : size;
}

/* the directory `dirfd` names (the working directory for AT_FDCWD), as read_path writes it */
static __always_inline __u32 read_dir_path(struct event_header *header, char *base, int dirfd)
{
	return read_path(header, base, dir_of(dirfd));
}

/* `base` and its size when `path` (as read from the caller) is relative, else nothing */
static __always_inline __u32 read_base(struct event_header *header, char *base, const char *path, int dirfd)
{
	return path[0] == '/' || path[0] == 0 ? 0 : read_dir_path(header, base, dirfd);
}

#endif
