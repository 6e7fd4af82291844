/* Reset for a Cortex-M with an FPU (QEMU's mps2-an386, a Cortex-M4F): the
 * vector table, the FPU switched on, .bss cleared, static constructors run,
 * then main and a semihosting exit with its status. Everything lives in the
 * board's first 4 MB of RAM (the loader writes the image there). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern uint32_t __bss_start__[], __bss_end__[], __StackTop[];
extern void __libc_init_array(void);
extern void initialise_monitor_handles(void);
extern int main(void);

/* What crti/crtbegin give a hosted link (this one has -nostartfiles):
 * constructors run from .init_array, so _init and _fini have nothing to do. */
void *__dso_handle = 0;
void _init(void) {}
void _fini(void) {}

void Reset_Handler(void) {
  /* CPACR: full access to coprocessors 10 and 11 (the FPU). */
  *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
  __asm volatile("dsb\n isb");
  memset(__bss_start__, 0,
         (size_t)((char *)__bss_end__ - (char *)__bss_start__));
  initialise_monitor_handles();
  __libc_init_array();
  exit(main());
}

static void Fault_Handler(void) {
  /* A fault is a failed run: the host sees status 3. */
  exit(3);
}

__attribute__((section(".vectors"), used)) static void *const vectors[16] = {
    __StackTop,
    (void *)Reset_Handler,
    (void *)Fault_Handler,
    (void *)Fault_Handler,
    (void *)Fault_Handler,
    (void *)Fault_Handler,
    (void *)Fault_Handler};
