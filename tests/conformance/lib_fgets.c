/* fgets and fgetc on standard input: lines with their newline, a short buffer splits a
   long line, NULL at the end of the input. */
#include <stdio.h>
#include <string.h>
int main(void) {
    char line[8];
    int n = 0;
    while (fgets(line, sizeof line, stdin) != NULL) {
        n++;
        printf("%d:%d:[%s]\n", n, (int)strlen(line), line);
    }
    printf("%d\n", fgetc(stdin));
    return 0;
}
