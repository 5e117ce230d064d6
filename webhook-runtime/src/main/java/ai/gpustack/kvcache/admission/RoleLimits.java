package ai.gpustack.kvcache.admission;

import ai.gpustack.kvcache.api.EffectiveSettings;
import ai.gpustack.kvcache.api.Message;
import ai.gpustack.kvcache.api.ModelDeploymentSpec;
import ai.gpustack.kvcache.api.Problems;
import ai.gpustack.kvcache.api.Role;
import ai.gpustack.kvcache.api.RoleResources;
import ai.gpustack.kvcache.resources.Quantities;
import ai.gpustack.kvcache.spi.Engine;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What an administrator bounds the operator's Pods by, checked when a deployment is admitted: the
 * replicas of all its roles ({@code model-deployment-max-replicas}), the registries its images come
 * from ({@code model-deployment-image-registries}), and resources the API server would accept in a
 * Pod. A stored deployment the Settings have since narrowed stays updatable as long as the update
 * does not ask for more: only a raised replica count or a changed image is measured again.
 */
final class RoleLimits {
  private RoleLimits() {}

  static void check(
      ModelDeploymentSpec spec,
      Optional<ModelDeploymentSpec> old,
      Engine engine,
      EffectiveSettings settings,
      Problems problems) {
    // A role out of range is refused already; its sum would say the same twice.
    int total = spec.roles().stream().mapToInt(Role::replicas).sum();
    int before = old.map(o -> o.roles().stream().mapToInt(Role::replicas).sum()).orElse(0);
    boolean inRange =
        spec.roles().stream().allMatch(r -> r.replicas() >= 0 && r.replicas() <= 1024);
    if (inRange && total > settings.maxReplicas() && (old.isEmpty() || total > before)) {
      problems.invalid(
          "spec.roles",
          Integer.toString(total),
          Message.DEPLOYMENT_REPLICAS_OVER_CAP.detail(total, settings.maxReplicas()));
    }
    for (int i = 0; i < spec.roles().size(); i++) {
      Role role = spec.roles().get(i);
      Optional<String> image = role.image().or(() -> engine.defaultImage(spec.engine().version()));
      Optional<String> imageBefore =
          old.flatMap(o -> o.roles().stream().filter(r -> r.name().equals(role.name())).findFirst())
              .flatMap(r -> r.image().or(() -> engine.defaultImage(spec.engine().version())));
      if (image.isPresent()
          && !settings.imageRegistries().isEmpty()
          && !allowed(image.get(), settings.imageRegistries())
          && !Objects.equals(image, imageBefore)) {
        problems.invalid(
            "spec.roles[" + i + "].image",
            image.get(),
            Message.DEPLOYMENT_IMAGE_NOT_ALLOWED.detail(
                "image " + reference(image.get()), String.join(", ", settings.imageRegistries())));
      }
      int index = i;
      role.resources()
          .ifPresent(r -> resources(r, "spec.roles[" + index + "].resources", problems));
    }
  }

  /**
   * An image reference as the container runtime resolves it, without tag or digest: a name without
   * a registry is Docker Hub's ({@code vllm/vllm-openai} is {@code docker.io/vllm/vllm-openai},
   * {@code nginx} is {@code docker.io/library/nginx}).
   */
  static String reference(String image) {
    String name = image.contains("@") ? image.substring(0, image.indexOf('@')) : image;
    int slash = name.lastIndexOf('/');
    int colon = name.lastIndexOf(':');
    if (colon > slash) {
      name = name.substring(0, colon);
    }
    int first = name.indexOf('/');
    String head = first < 0 ? "" : name.substring(0, first);
    boolean registry = head.contains(".") || head.contains(":") || head.equals("localhost");
    if (registry) {
      return name;
    }
    return "docker.io/" + (first < 0 ? "library/" + name : name);
  }

  /** Whether {@code image} is under one of {@code registries} (a registry or a path below one). */
  static boolean allowed(String image, List<String> registries) {
    String ref = reference(image);
    return registries.stream()
        .map(r -> r.endsWith("/") ? r.substring(0, r.length() - 1) : r)
        .anyMatch(r -> ref.equals(r) || ref.startsWith(r + "/"));
  }

  /**
   * The API server's rules for a container's resources (Kubernetes v1.36.3,
   * pkg/apis/core/validation/validation.go, ValidateContainerResourceRequirements): quantities, a
   * request at most its limit, and an extended resource, which cannot be overcommitted, with a
   * limit equal to any request.
   */
  private static void resources(RoleResources r, String field, Problems problems) {
    quantities(r.requests(), field + ".requests", problems);
    quantities(r.limits(), field + ".limits", problems);
    for (Map.Entry<String, String> request : r.requests().entrySet()) {
      String name = request.getKey();
      Optional<BigDecimal> asked = Quantities.amount(request.getValue());
      Optional<BigDecimal> limit =
          Optional.ofNullable(r.limits().get(name)).flatMap(Quantities::amount);
      String path = field + ".requests[" + name + "]";
      if (asked.isEmpty()) {
        continue;
      }
      if (limit.isPresent()) {
        int order = asked.get().compareTo(limit.get());
        if (order > 0) {
          problems.invalid(
              path,
              request.getValue(),
              Message.DEPLOYMENT_RESOURCE_OVER_LIMIT.detail(name, r.limits().get(name)));
        } else if (order != 0 && !overcommitAllowed(name)) {
          problems.invalid(
              path,
              request.getValue(),
              Message.DEPLOYMENT_RESOURCE_NOT_OVERCOMMITTED.detail(name, r.limits().get(name)));
        }
      } else if (!overcommitAllowed(name) && !r.limits().containsKey(name)) {
        problems.required(
            field + ".limits[" + name + "]", Message.DEPLOYMENT_RESOURCE_LIMIT_REQUIRED.detail());
      }
    }
  }

  private static void quantities(Map<String, String> amounts, String field, Problems problems) {
    amounts.forEach(
        (name, amount) -> {
          if (Quantities.amount(amount).isEmpty()) {
            problems.invalid(
                field + "[" + name + "]", amount, Message.DEPLOYMENT_RESOURCE_QUANTITY.detail());
          }
        });
  }

  /**
   * Whether Kubernetes lets {@code name} be overcommitted: a native resource ({@code cpu}, {@code
   * memory}, {@code kubernetes.io/*}) that is not huge pages (helper.IsOvercommitAllowed).
   */
  private static boolean overcommitAllowed(String name) {
    boolean nativeResource = !name.contains("/") || name.startsWith("kubernetes.io/");
    return nativeResource && !name.startsWith("hugepages-");
  }
}
