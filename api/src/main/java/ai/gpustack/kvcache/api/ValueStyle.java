package ai.gpustack.kvcache.api;

import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.generator.annotation.ValidationRules;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.immutables.value.Value;

/**
 * The one Immutables style of this library's values, on each package that defines them: an abstract
 * {@code FooDef} generates the public, strict, null-free {@code Foo}; CRD validation rules carry
 * over to the generated type.
 */
@Target({ElementType.PACKAGE, ElementType.TYPE})
@Retention(RetentionPolicy.CLASS)
@Value.Style(
    typeAbstract = "*Def",
    typeImmutable = "*",
    visibility = Value.Style.ImplementationVisibility.PUBLIC,
    strictBuilder = true,
    jdkOnly = true,
    passAnnotations = {ValidationRule.class, ValidationRules.class},
    allowedClasspathAnnotations = {Override.class})
public @interface ValueStyle {}
