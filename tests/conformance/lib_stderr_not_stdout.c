/* fprintf(stderr) does not go to standard output; fprintf(stdout) does */
#include <stdio.h>
int main(void) {
    fprintf(stderr, "this is on stderr\n");
    fprintf(stdout, "this is on stdout %d\n", 1);
    fputs("fputs line\n", stdout);
    fputc('!', stdout);
    fputc('\n', stdout);
    return 0;
}
