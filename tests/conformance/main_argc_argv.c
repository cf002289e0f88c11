/* main(int argc, char *argv[]): run with no arguments, argc is 1 and argv ends with a
   null pointer; main's return value is the exit status (0 here). */
#include <stdio.h>
int main(int argc, char *argv[]) {
    printf("%d %d %d\n", argc, argv[argc] == NULL, argv[0] != NULL);
    return 0;
}
