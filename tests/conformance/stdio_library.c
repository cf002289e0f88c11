/* The rest of <stdio.h>, <stdlib.h>, <string.h> and <errno.h> a program without an
   OS beyond files needs: sscanf, ungetc, feof, ferror, clearerr, fseek, ftell,
   rewind, strtok, strerror, errno after a failed fopen, div/ldiv, offsetof. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
    int id;
    double w;
    char tag[4];
};

int main(void) {
    int a, b;
    char w[16];
    double x;
    int n = sscanf("12 34 word 2.5", "%d %d %15s %lf", &a, &b, w, &x);
    printf("%d %d %d %s %.2f %d\n", n, a, b, w, x, sscanf("", "%d", &a));

    char line[] = ",a,bc,,d,";
    for (char *t = strtok(line, ","); t; t = strtok(NULL, ",")) printf("[%s]", t);
    printf("\n");

    errno = 0;
    FILE *none = fopen("no_such_file.txt", "r");
    printf("%d %d %s\n", none == NULL, errno == ENOENT, strerror(errno));
    printf("%s|%s\n", strerror(0), strerror(ERANGE));

    FILE *f = fopen("conf_stdio_tmp.txt", "w");
    fputs("hello\nworld\n", f);
    printf("%ld\n", ftell(f));
    fclose(f);
    f = fopen("conf_stdio_tmp.txt", "r");
    int c = fgetc(f);
    int u = ungetc(c, f);
    printf("%c%c", u, fgetc(f));
    fseek(f, 0, SEEK_END);
    printf(" %ld", ftell(f));
    fseek(f, -6, SEEK_END);
    printf(" %c", fgetc(f));
    fseek(f, 2, SEEK_SET);
    fseek(f, 1, SEEK_CUR);
    c = fgetc(f);
    printf(" %c %ld", c, ftell(f));
    rewind(f);
    char buf[32];
    fgets(buf, sizeof buf, f);
    printf(" %s", buf);
    printf("%d", feof(f) != 0);
    int count = 0;
    while (fgetc(f) != EOF) count++;
    printf(" %d %d %d", count, feof(f) != 0, ferror(f));
    clearerr(f);
    printf(" %d\n", feof(f));
    fclose(f);

    /* feof on stdin: set only once a read finds the end */
    int sum = 0, v;
    while (!feof(stdin)) {
        if (scanf("%d", &v) == 1) sum += v;
    }
    printf("%d\n", sum);

    div_t d = div(17, 5);
    ldiv_t e = ldiv(-17L, 5L);
    printf("%d %d %ld %ld\n", d.quot, d.rem, e.quot, e.rem);
    printf("%d %d\n", offsetof(struct rec, id) == 0, offsetof(struct rec, tag) > offsetof(struct rec, w));
    return 0;
}
