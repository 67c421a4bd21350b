// SPDX-License-Identifier: MIT
/*
 * posix_fadvise(2) (the kernel's generic_fadvise) for the advice that
 * steers readahead.  WILLNEED, DONTNEED and NOREUSE act on the cache or
 * on reuse tracking and are not modelled: they are refused rather than
 * silently ignored, so that no workload believes it used them.
 */
#include <errno.h>
#include <fcntl.h>

#include <lrulab/fs.h>

int vfs_fadvise(struct file *file, int advice)
{
	switch (advice) {
	case POSIX_FADV_NORMAL:
		file->f_ra.ra_pages = file->f_mapping->ra_pages;
		file->f_mode &= ~FMODE_RANDOM;
		return 0;
	case POSIX_FADV_RANDOM:
		/* ra_pages stays: a PG_readahead hit still reads ahead */
		file->f_mode |= FMODE_RANDOM;
		return 0;
	case POSIX_FADV_SEQUENTIAL:
		file->f_ra.ra_pages = 2 * file->f_mapping->ra_pages;
		file->f_mode &= ~FMODE_RANDOM;
		return 0;
	default:
		return -EINVAL;
	}
}
