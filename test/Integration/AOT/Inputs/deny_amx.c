/* Runs a command in a process whose requests for the AMX tile state are
 * refused, as Linux refuses them on a CPU without AMX or under a kernel
 * that does not hand it out: a seccomp filter makes
 * arch_prctl(ARCH_REQ_XCOMP_PERM, ...) fail with EPERM and lets every other
 * system call (arch_prctl(ARCH_SET_FS) of the dynamic loader included)
 * through. The filter survives execve. Used by ../amx-refused.mlir.
 *
 *   deny_amx COMMAND [ARG...]
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: deny_amx COMMAND [ARG...]\n");
    return 2;
  }
  enum { ARCH_REQ_XCOMP_PERM = 0x1023 };
  struct sock_filter filter[] = {
      /* Only x86-64 system calls are looked at; anything else is allowed. */
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 5),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_arch_prctl, 0, 3),
      /* The low 32 bits of the first argument: the arch_prctl code. */
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_REQ_XCOMP_PERM, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {sizeof(filter) / sizeof(filter[0]), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
    fprintf(stderr, "deny_amx: cannot install the seccomp filter: %s\n",
            strerror(errno));
    return 2;
  }
  execvp(argv[1], argv + 1);
  fprintf(stderr, "deny_amx: cannot run %s: %s\n", argv[1], strerror(errno));
  return 2;
}
