package ai.gpustack.kvcache.resources;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.Optional;

/** Kubernetes quantities compared by amount, so {@code 20Ti} equals {@code 21990232555520}. */
public final class Quantities {
  private Quantities() {}

  /** The amount of {@code value}; empty when it is not a quantity. */
  public static Optional<BigDecimal> amount(String value) {
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Quantity.getAmountInBytes(new Quantity(value)));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /** Whether {@code value} is a quantity greater than zero. */
  public static boolean positive(String value) {
    return amount(value).map(a -> a.signum() > 0).orElse(false);
  }

  /**
   * {@code bytes} as a person writes it: the largest binary suffix that divides it ({@code 3Ti},
   * {@code 1536Mi}), else the plain number.
   */
  public static String format(BigDecimal bytes) {
    String[] suffixes = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
    BigDecimal whole = bytes.stripTrailingZeros();
    for (int i = 0; i < suffixes.length; i++) {
      BigDecimal unit = BigDecimal.valueOf(2).pow(10 * (suffixes.length - i));
      BigDecimal[] qr = whole.divideAndRemainder(unit);
      if (whole.signum() != 0 && qr[1].signum() == 0 && qr[0].signum() != 0) {
        return qr[0].toPlainString() + suffixes[i];
      }
    }
    return whole.toPlainString();
  }
}
