/* String building with sprintf (scripts/bench-suite.sh): 100 000 formatted records, their
 * total length and a checksum of their characters. */
void main() {
    char buf[64];
    int i, k, len, total, sum;
    total = 0;
    sum = 0;
    for (i = 0; i < 100000; i++) {
        sprintf(buf, "%d:%d;", i, i % 977 * 31);
        len = strlen(buf);
        total = total + len;
        for (k = 0; k < len; k++)
            sum = (sum * 31 + buf[k]) % 1000003;
    }
    printf("length %d checksum %d\n", total, sum);
}
