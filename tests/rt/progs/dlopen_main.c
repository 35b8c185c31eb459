/* dlopen_main.c - loads shlib (built with foretell-cc -shared) with
 * dlopen after recording started: its sites need a MODULES chunk. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    void (*bump)(void) = (void (*)(void))dlsym(h, "lib_bump");
    int *counter = (int *)dlsym(h, "lib_counter");
    for (int i = 0; i < 10; i++)
        bump();
    printf("lib_counter=%d\n", *counter);
    return *counter == 10 ? 0 : 1;
}
/* SPDX-License-Identifier: MIT */
