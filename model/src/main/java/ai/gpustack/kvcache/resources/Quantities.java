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
}
